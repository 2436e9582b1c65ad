import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { Schemas } from '../api/client';
import { useMe } from './queries';

type Me = Schemas['User'] & { workspaces: (Schemas['Workspace'] & { role: 'OWNER' | 'ADMIN' | 'MEMBER' | 'VIEWER' })[] };

type WorkspaceState = {
  me: Me | undefined;
  workspaceId: number | null;
  role: Me['workspaces'][number]['role'] | null;
  /** null: every project of the workspace. */
  projectId: number | null;
  selectWorkspace(id: number): void;
  selectProject(id: number | null): void;
};

const Context = createContext<WorkspaceState | null>(null);

/** The last workspace chosen is a preference (an id, no secret), so it survives a reload. */
const KEY = 'vigil-workspace';

export function WorkspaceProvider({ children }: { children: ReactNode }) {
  const me = useMe();
  const [chosen, setChosen] = useState<number | null>(() => Number(localStorage.getItem(KEY)) || null);
  const [projectId, selectProject] = useState<number | null>(null);
  const workspaces = me.data?.workspaces ?? [];
  const current = workspaces.find((w) => w.id === chosen) ?? workspaces[0];
  const selectWorkspace = useCallback((id: number) => {
    localStorage.setItem(KEY, String(id));
    setChosen(id);
    selectProject(null);
  }, []);
  const value = useMemo<WorkspaceState>(
    () => ({ me: me.data, workspaceId: current?.id ?? null, role: current?.role ?? null, projectId, selectWorkspace, selectProject }),
    [me.data, current, projectId, selectWorkspace],
  );
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

export function useWorkspace(): WorkspaceState {
  const state = useContext(Context);
  if (state === null) throw new Error('useWorkspace outside WorkspaceProvider');
  return state;
}
