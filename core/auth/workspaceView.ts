import type { WorkspaceItem } from '../store/entities/workspace.js';

export const toWorkspaceResponse = (w: WorkspaceItem) => ({
  id: w.workspaceId,
  name: w.name,
  plan: w.plan,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});
