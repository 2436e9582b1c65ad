import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { LiveStatusContext, type LiveStatus } from '../layout/LiveIndicator';
import { applyMessage, resumeAfterGap } from './cache';
import { openLiveConnection } from './connection';
import { streamUrl } from './streamUrl';

/**
 * The signed-in app's one WebSocket to the signal stream (every check of the user's workspaces):
 * check states, new incidents and timelines reach the screens through the query cache, and the
 * header's indicator says whether the stream is live.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>(null);
  useEffect(() => {
    const connection = openLiveConnection({
      url: streamUrl,
      onMessage: (message) => applyMessage(queryClient, message),
      onState: setStatus,
      onResume: () => resumeAfterGap(queryClient),
    });
    return () => connection.stop();
  }, [queryClient]);
  return <LiveStatusContext.Provider value={status}>{children}</LiveStatusContext.Provider>;
}
