import { createContext, useContext } from 'react';

/** What the WebSocket stream says of itself; null until a live connection is set up (incidents/live helper). */
export type LiveStatus = 'live' | 'reconnecting' | null;

export const LiveStatusContext = createContext<LiveStatus>(null);

/** The header's small "Live" / "Reconnecting" indicator: text and a dot, never colour alone. */
export function LiveIndicator() {
  const status = useContext(LiveStatusContext);
  if (status === null) return null;
  return (
    <span className={`live live-${status}`} role="status">
      <span className="live-dot" aria-hidden="true" />
      {status === 'live' ? 'Live' : 'Reconnecting…'}
    </span>
  );
}
