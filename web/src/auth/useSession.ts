import { useSyncExternalStore } from 'react';
import { sessionStore } from '../api/session';

export const useSessionState = () => useSyncExternalStore(sessionStore.subscribe, sessionStore.state);
