import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { Skeleton } from '../ui/Skeleton';
import { useSessionState } from './useSession';

/** Signed-in screens: while the cookie refresh runs on load, a skeleton; without a session, /signin. */
export function RequireSession() {
  const state = useSessionState();
  const location = useLocation();
  if (state === 'unknown') return <Skeleton lines={6} />;
  if (state === 'signedOut') return <Navigate to="/signin" replace state={{ from: location.pathname + location.search }} />;
  return <Outlet />;
}
