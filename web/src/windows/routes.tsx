import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
import './windows.css';

// Loaded on first visit, like the schedules: the time-zone arithmetic stays off the first page.
const WindowsPage = lazy(() => import('./WindowsPage').then((m) => ({ default: m.WindowsPage })));

/** The windows screen's route, owned by this folder (mounted inside the signed-in layout). */
export const windowRoutes: RouteObject[] = [{ path: 'windows', element: <WindowsPage /> }];
