import { Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, getStack } from 'sst/constructs';
import type { FunctionalStack } from 'sst/constructs/FunctionalStack.js';
import { initProject } from 'sst/project.js';
import { composeStacks } from '../../stacks/index.js';

export const ACCOUNT = '123456789012';

/**
 * Builds the app as `sst deploy --stage test --region <region>` would, bundling the
 * functions with esbuild, and returns a template getter. vitest sets NODE_ENV=test, which keeps
 * SST from looking up the bootstrap stack in AWS.
 */
export async function buildApp(region: string, env: Record<string, string> = {}): Promise<(stack: FunctionalStack<unknown>) => Template> {
  Object.assign(process.env, { VIGIL_DASHBOARD_DIST: dashboardFixture() }, env);
  await initProject({ stage: 'test' });
  const app = new App({ mode: 'deploy', stage: 'test', name: 'vigil', region, account: ACCOUNT });
  composeStacks(app);
  await app.finish();
  const templates = new Map<FunctionalStack<unknown>, Template>();
  return (stack) => {
    let template = templates.get(stack);
    if (!template) templates.set(stack, (template = Template.fromStack(getStack(stack))));
    return template;
  };
}

/**
 * A stand-in for the dashboard's build output: the StaticSite uploads whatever directory
 * VIGIL_DASHBOARD_DIST names instead of running `npm run build:web`, so the synth stays offline
 * and does not depend on web/ having been built.
 */
function dashboardFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-dashboard-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Vigil</title><div id="root"></div>');
  return dir;
}

export type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };

/** The inline policy statements of a role (`prefix` = the role's id) or of a function's role (`prefix` = the function's id). */
export function policyStatements(template: Template, prefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const entry = Object.entries(policies).find(([id]) => id.startsWith(`${prefix}ServiceRoleDefaultPolicy`) || id.startsWith(`${prefix}DefaultPolicy`));
  if (!entry) throw new Error(`no policy for ${prefix}`);
  return (entry[1] as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement;
}

export const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

export const allStatements = (template: Template): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => (policy as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement,
  );

/** The logical id of the only resource of `type` whose id starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} named ${prefix}*, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

export const json = (value: unknown): string => JSON.stringify(value);
