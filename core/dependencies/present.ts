import type { DependencyItem } from '../store/entities/dependency.js';

/** A dependency as the API shows it (also inside a check with its dependencies). */
export const toDependency = (d: DependencyItem) => ({
  id: d.dependencyId,
  workspaceId: d.workspaceId,
  name: d.name,
  description: d.description ?? null,
  category: d.category ?? null,
  url: d.url ?? null,
  source: d.source,
  status: d.lastReportedStatus === 'down' ? ('DOWN' as const) : d.lastReportedStatus === 'ok' ? ('OK' as const) : ('UNKNOWN' as const),
  lastReportedAt: d.lastReportedAt ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
export type DependencyView = ReturnType<typeof toDependency>;
