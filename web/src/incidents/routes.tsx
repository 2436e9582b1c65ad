import type { RouteObject } from 'react-router-dom';
import { IncidentDetailPage } from './IncidentDetailPage';
import { IncidentsPage } from './IncidentsPage';
import './incidents.css';

/** The incidents screens' routes, owned by this folder (mounted inside the signed-in layout). */
export const incidentRoutes: RouteObject[] = [
  { path: 'incidents', element: <IncidentsPage /> },
  { path: 'incidents/:id', element: <IncidentDetailPage /> },
];
