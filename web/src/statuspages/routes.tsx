import type { RouteObject } from 'react-router-dom';
import { StatusPageEditor } from './StatusPageEditor';
import { StatusPagesPage } from './StatusPagesPage';
import './statuspages.css';

/** The status pages' screens, owned by this folder (mounted inside the signed-in layout). */
export const statusPageRoutes: RouteObject[] = [
  { path: 'status-pages', element: <StatusPagesPage /> },
  { path: 'status-pages/:id', element: <StatusPageEditor /> },
];
