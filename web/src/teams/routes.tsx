import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';

const TeamsPage = lazy(() => import('./TeamsPage').then((m) => ({ default: m.TeamsPage })));
const TeamDetailPage = lazy(() => import('./TeamDetailPage').then((m) => ({ default: m.TeamDetailPage })));

/** The teams' routes, owned by this folder (mounted inside the signed-in layout). */
export const teamRoutes: RouteObject[] = [
  { path: 'teams', element: <TeamsPage /> },
  { path: 'teams/:id', element: <TeamDetailPage /> },
];
