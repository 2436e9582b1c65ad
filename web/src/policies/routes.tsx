import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
import './policies.css';

const PoliciesPage = lazy(() => import('./PoliciesPage').then((m) => ({ default: m.PoliciesPage })));
const PolicyEditorPage = lazy(() => import('./PolicyEditorPage').then((m) => ({ default: m.PolicyEditorPage })));

/** The escalation policies' routes, owned by this folder (mounted inside the signed-in layout). */
export const policyRoutes: RouteObject[] = [
  { path: 'policies', element: <PoliciesPage /> },
  { path: 'policies/new', element: <PolicyEditorPage /> },
  { path: 'policies/:id', element: <PolicyEditorPage /> },
];
