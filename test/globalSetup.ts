import type { TestProject } from 'vitest/node';
import { startEmbeddedStore } from '../core/adapters/local/embeddedStore.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * One in-memory dynalite for the whole run (each test file makes its own table). When
 * VIGIL_TEST_DYNAMODB_ENDPOINT is set (the DynamoDB Local fidelity pass) that endpoint is used.
 */
export default async function setup(project: TestProject) {
  const external = process.env.VIGIL_TEST_DYNAMODB_ENDPOINT;
  if (external) {
    project.provide('dynamoEndpoint', external);
    return;
  }
  const store = await startEmbeddedStore(':memory:');
  project.provide('dynamoEndpoint', store.endpoint);
  return () => store.close();
}
