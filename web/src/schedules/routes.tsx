import { lazy, Suspense } from 'react';
import type { RouteObject } from 'react-router-dom';
import { Skeleton } from '../ui/Skeleton';
import { prefetchRouteTimeline, useRouteTimeline } from './timeline';
import './schedules.css';

// Loaded on first visit: Temporal (the time-zone arithmetic) stays out of the first page's scripts.
const SchedulesPage = lazy(() => import('./SchedulesPage').then((m) => ({ default: m.SchedulesPage })));
const loadSchedulePage = () => import('./SchedulePage');
const SchedulePage = lazy(() => loadSchedulePage().then((m) => ({ default: m.SchedulePage })));

/**
 * Asks for the schedule's timeline as the route renders, then waits for the screen's script inside
 * a boundary of its own, so this component commits (and its query starts) while the script loads.
 */
function ScheduleRoute() {
  useRouteTimeline();
  return (
    <Suspense fallback={<Skeleton label="Loading the schedule" lines={8} />}>
      <SchedulePage />
    </Suspense>
  );
}

/** The on-call screens' routes, owned by this folder (mounted inside the signed-in layout). */
export const scheduleRoutes: RouteObject[] = [
  { path: 'schedules', element: <SchedulesPage /> },
  {
    path: 'schedules/:id',
    element: <ScheduleRoute />,
    // The screen's script is asked for with its data, not once the signed-in frame has rendered.
    loader: (args) => {
      void loadSchedulePage();
      return prefetchRouteTimeline(args);
    },
  },
];
