import { Template } from 'aws-cdk-lib/assertions';
import { getStack } from 'sst/constructs';
import type { FunctionalStack } from 'sst/constructs/FunctionalStack.js';
import { OFFLINE_ACCOUNT, offlineApp } from '../../stacks/offline.js';

export const ACCOUNT = OFFLINE_ACCOUNT;

/**
 * Builds the app offline (stacks/offline.ts) and returns a template getter. Files that build the
 * same region at once need stages of their own: SST bundles each function into
 * `.sst/artifacts/<its construct address>`, which includes the stage, and removes the bundle's
 * source map after reading it, so two builds of one address in two test workers race (ENOENT on
 * the `.map`, seen in a full run).
 */
export async function buildApp(region: string, env: Record<string, string> = {}, stage?: string): Promise<(stack: FunctionalStack<unknown>) => Template> {
  await offlineApp(region, env, stage);
  const templates = new Map<FunctionalStack<unknown>, Template>();
  return (stack) => {
    let template = templates.get(stack);
    if (!template) templates.set(stack, (template = Template.fromStack(getStack(stack))));
    return template;
  };
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
