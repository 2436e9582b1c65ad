import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

/** The app's one query cache: the screens read through it, and a route's loader may fill it before its screen renders. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx will not change on retry; a dropped connection may.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
});
