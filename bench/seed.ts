import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Actor } from '../core/context.js';
import type { Deps } from '../core/deps.js';
import { countBulkRefs } from '../core/store/checkLists.js';
import type { CheckItem } from '../core/store/entities/check.js';

export type SeedTarget = { workspaceId: number; projectId: number };

/** A user signed up over HTTP, as a person would: their workspace, its project, and them as an actor. */
export async function signUp(origin: string, name = 'bench'): Promise<SeedTarget & { actor: Actor }> {
  const signup = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}-${process.pid}@example.com`, password: 'benchmark password', name }),
  });
  const created = (await signup.json()) as { access_token: string; workspace: { id: number }; user: { id: number; email: string } };
  const projects = await fetch(`${origin}/api/projects?workspaceId=${created.workspace.id}`, { headers: { authorization: `Bearer ${created.access_token}` } });
  const [project] = (await projects.json()) as { id: number }[];
  if (!project) throw new Error('sign-up made no project');
  return { workspaceId: created.workspace.id, projectId: project.id, actor: { kind: 'user', userId: created.user.id, email: created.user.email } };
}

/**
 * Heartbeat checks written straight into the table in batches (the same items the check verbs
 * write): the benchmark measures pings and the sweep, not check creation.
 */
export async function seedChecks(deps: Deps, target: SeedTarget, count: number, shape: (index: number) => Partial<CheckItem>): Promise<CheckItem[]> {
  const iso = deps.clock.now().toISOString();
  const firstId = (await reserveIds(deps, 'check', count)) - count + 1;
  const checks: CheckItem[] = [];
  for (let i = 0; i < count; i++) {
    const checkId = firstId + i;
    checks.push({
      token: randomUUID(),
      checkId,
      workspaceId: target.workspaceId,
      projectId: target.projectId,
      name: `bench ${checkId}`,
      checkMode: 'INBOUND',
      checkType: 'HEARTBEAT',
      intervalSeconds: 3600,
      graceSeconds: 300,
      muteNotifications: false,
      downSeverity: 'P1',
      lateSeverity: 'P3',
      status: 'NEW',
      createdAt: iso,
      updatedAt: iso,
      ...shape(i),
    });
  }
  for (let i = 0; i < checks.length; i += 500) {
    const slice = checks.slice(i, i + 500);
    const refs = slice.map((c) => ({ checkId: c.checkId, token: c.token, workspaceId: c.workspaceId, projectId: target.projectId, checkMode: c.checkMode }));
    await Promise.all([deps.store.entities.check.put(slice).go(), deps.store.entities.checkRef.put(refs).go(), countBulkRefs(deps.store, refs)]);
  }
  return checks;
}

/** Takes `count` ids from the entity's counter at once (the same counter store.nextId uses). */
async function reserveIds(deps: Deps, entity: string, count: number): Promise<number> {
  const result = await deps.store.client.send(
    new UpdateCommand({
      TableName: deps.store.table,
      Key: { pk: `counter#${entity}`, sk: 'counter' },
      UpdateExpression: 'ADD #value :count',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':count': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.value);
}
