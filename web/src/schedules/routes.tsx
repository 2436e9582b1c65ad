import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
import './schedules.css';

// Loaded on first visit: Temporal (the time-zone arithmetic) stays out of the first page's scripts.
const SchedulesPage = lazy(() => import('./SchedulesPage').then((m) => ({ default: m.SchedulesPage })));
const SchedulePage = lazy(() => import('./SchedulePage').then((m) => ({ default: m.SchedulePage })));

/** The on-call screens' routes, owned by this folder (mounted inside the signed-in layout). */
export const scheduleRoutes: RouteObject[] = [
  { path: 'schedules', element: <SchedulesPage /> },
  { path: 'schedules/:id', element: <SchedulePage /> },
];
