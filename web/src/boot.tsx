import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { queryClient } from './api/queryClient';
import { restoreSession } from './api/session';
import { router } from './App';
import { applyTheme } from './layout/theme';
import { ToastProvider } from './ui/toast';
import './styles.css';

applyTheme();

/*
 * A reload keeps you signed in: the refresh cookie buys a new access token (main.tsx asked for it)
 * before the first screen. The first render waits for that answer. Drawn before it, the app only
 * shows a skeleton, keeps the main thread busy while the refresh waits for its cross-tab lock
 * (whose grant is a task on this thread), and then draws everything again once the session is known.
 */
const root = document.getElementById('root');
if (root) void restoreSession().then(() => render(root));

function render(root: HTMLElement) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <ToastProvider>
          <RouterProvider router={router} future={{ v7_startTransition: true }} />
        </ToastProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
