import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';

const DependenciesPage = lazy(() => import('./DependenciesPage').then((m) => ({ default: m.DependenciesPage })));
const DependencyDetailPage = lazy(() => import('./DependencyDetailPage').then((m) => ({ default: m.DependencyDetailPage })));

/** The dependencies' routes, owned by this folder (mounted inside the signed-in layout). */
export const dependencyRoutes: RouteObject[] = [
  { path: 'dependencies', element: <DependenciesPage /> },
  { path: 'dependencies/:id', element: <DependencyDetailPage /> },
];
