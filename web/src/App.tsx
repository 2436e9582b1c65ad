import { createBrowserRouter, Navigate } from 'react-router-dom';
import { RequireSession } from './auth/RequireSession';
import { SignInPage } from './auth/SignInPage';
import { SignUpPage } from './auth/SignUpPage';
import { channelRoutes } from './channels/routes';
import { checkRoutes } from './checks/routes';
import { dependencyRoutes } from './dependencies/routes';
import { incidentRoutes } from './incidents/routes';
import { scheduleRoutes } from './schedules/routes';
import { windowRoutes } from './windows/routes';
import { Layout } from './layout/Layout';
import { NotFoundPage } from './layout/NotFoundPage';
import { LiveProvider } from './live/LiveProvider';
import { policyRoutes } from './policies/routes';
import { teamRoutes } from './teams/routes';
import { settingsRoutes } from './settings/routes';
import { statusPageRoutes } from './statuspages/routes';

export const router = createBrowserRouter(
  [
    { path: '/signin', element: <SignInPage /> },
    { path: '/signup', element: <SignUpPage /> },
    {
      element: <RequireSession />,
      children: [
        {
          path: '/',
          // The live stream lives as long as the signed-in frame, and feeds its indicator.
          element: (
            <LiveProvider>
              <Layout />
            </LiveProvider>
          ),
          children: [
            { index: true, element: <Navigate to="/checks" replace /> },
            ...checkRoutes,
            ...incidentRoutes,
            ...scheduleRoutes,
            ...policyRoutes,
            ...channelRoutes,
            ...teamRoutes,
            ...windowRoutes,
            ...dependencyRoutes,
            ...statusPageRoutes,
            ...settingsRoutes,
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ],
  // React Router 7's behaviour now, so the upgrade changes nothing (and v6 stops warning).
  { future: { v7_relativeSplatPath: true, v7_fetcherPersist: true, v7_normalizeFormMethod: true, v7_partialHydration: true, v7_skipActionErrorRevalidation: true } },
);
