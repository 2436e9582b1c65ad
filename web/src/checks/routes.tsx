import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
import { ChecksPage } from './list/ChecksPage';

// The list is the first screen and ships in the initial bundle; the form (cron-parser and
// luxon for the preview) and the detail page (uPlot) load when first opened.
const CheckFormPage = lazy(() => import('./form/CheckFormPage').then((m) => ({ default: m.CheckFormPage })));
const CheckDetailPage = lazy(() => import('./detail/CheckDetailPage').then((m) => ({ default: m.CheckDetailPage })));

export const checkRoutes: RouteObject[] = [
  { path: 'checks', element: <ChecksPage /> },
  { path: 'checks/new', element: <CheckFormPage /> },
  { path: 'checks/:id', element: <CheckDetailPage /> },
  { path: 'checks/:id/edit', element: <CheckFormPage /> },
];
