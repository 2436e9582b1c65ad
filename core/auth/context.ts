import type { Role } from './roles.js';

export type UserActor = { kind: 'user'; userId: number; email: string };
export type ApiKeyActor = {
  kind: 'apiKey';
  apiKeyId: number;
  workspaceId: number;
  permission: 'read_only' | 'read_write';
  keyKind: 'service' | 'ping';
  name: string;
};
export type Actor = UserActor | ApiKeyActor;

/** What a verb needs to know about the caller once scope has been checked. */
export type Scope = { workspaceId: number; role: Role; actor: Actor };
