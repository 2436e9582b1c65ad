import type { RouteObject } from 'react-router-dom';
import { CheckDetailPage } from './detail/CheckDetailPage';
import { CheckFormPage } from './form/CheckFormPage';
import { ChecksPage } from './list/ChecksPage';

export const checkRoutes: RouteObject[] = [
  { path: 'checks', element: <ChecksPage /> },
  { path: 'checks/new', element: <CheckFormPage /> },
  { path: 'checks/:id', element: <CheckDetailPage /> },
  { path: 'checks/:id/edit', element: <CheckFormPage /> },
];
