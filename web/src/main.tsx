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
// A reload keeps you signed in: the refresh cookie buys a new access token before the first screen.
void restoreSession();

const root = document.getElementById('root');
if (root) {
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
