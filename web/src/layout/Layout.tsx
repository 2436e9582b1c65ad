import { useQueryClient } from '@tanstack/react-query';
import { Suspense } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router-dom';
import { signOut } from '../auth/actions';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { WorkspaceProvider } from '../workspace/context';
import { WorkspaceSwitcher } from '../workspace/WorkspaceSwitcher';
import { LiveIndicator } from './LiveIndicator';
import { ThemeSwitch } from './ThemeSwitch';

/** The signed-in frame: skip link, navigation, workspace/project switcher, theme, live state. */
export function Layout() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const leave = async () => {
    await signOut();
    queryClient.clear();
    toast({ title: 'Signed out' });
    navigate('/signin', { replace: true });
  };
  return (
    <WorkspaceProvider>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/checks" className="brand" aria-label="Vigil home">
          Vigil
        </NavLink>
        <nav aria-label="Main">
          <NavLink to="/checks">Checks</NavLink>
          <NavLink to="/incidents">Incidents</NavLink>
          <NavLink to="/schedules">On call</NavLink>
          <NavLink to="/policies">Escalation</NavLink>
          <NavLink to="/channels">Channels</NavLink>
          <NavLink to="/teams">Teams</NavLink>
          <NavLink to="/windows">Windows</NavLink>
          <NavLink to="/dependencies">Dependencies</NavLink>
          <NavLink to="/status-pages">Status pages</NavLink>
          <NavLink to="/settings">Settings</NavLink>
        </nav>
        <WorkspaceSwitcher />
        <div className="topbar-end">
          <LiveIndicator />
          <ThemeSwitch />
          <button type="button" className="button ghost" onClick={() => void leave()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Skeleton lines={8} />}>
          <Outlet />
        </Suspense>
      </main>
    </WorkspaceProvider>
  );
}
