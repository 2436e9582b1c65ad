import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import { useToast } from '../ui/toast';
import { useWorkspace } from './context';
import { keys, useProjects } from './queries';

/** Picks the workspace and the project the screens show, and creates either. */
export function WorkspaceSwitcher() {
  const { me, workspaceId, projectId, selectWorkspace, selectProject } = useWorkspace();
  const projects = useProjects(workspaceId);
  const [creating, setCreating] = useState<'workspace' | 'project' | null>(null);
  if (!me) return <div className="switcher" aria-hidden="true" />;
  return (
    <div className="switcher">
      <label>
        <span>Workspace</span>
        <select value={workspaceId ?? ''} onChange={(e) => selectWorkspace(Number(e.target.value))}>
          {me.workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Project</span>
        <select value={projectId ?? ''} onChange={(e) => selectProject(e.target.value === '' ? null : Number(e.target.value))}>
          <option value="">All projects</option>
          {(projects.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button ghost" aria-expanded={creating === 'workspace'} onClick={() => setCreating(creating === 'workspace' ? null : 'workspace')}>
        New workspace
      </button>
      <button type="button" className="button ghost" aria-expanded={creating === 'project'} onClick={() => setCreating(creating === 'project' ? null : 'project')}>
        New project
      </button>
      {creating ? <CreateForm kind={creating} onDone={() => setCreating(null)} /> : null}
    </div>
  );
}

function CreateForm({ kind, onDone }: { kind: 'workspace' | 'project'; onDone: () => void }) {
  const { workspaceId, selectWorkspace, selectProject } = useWorkspace();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      kind === 'workspace' ? unwrap(api.POST('/workspaces', { body: { name } })) : unwrap(api.POST('/projects', { body: { name, workspaceId: workspaceId ?? undefined } })),
    onSuccess: async (created) => {
      toast({ title: `${kind === 'workspace' ? 'Workspace' : 'Project'} “${created.name}” created` });
      if (kind === 'workspace') {
        await queryClient.invalidateQueries({ queryKey: keys.me });
        selectWorkspace(created.id);
      } else {
        await queryClient.invalidateQueries({ queryKey: keys.projects(workspaceId ?? 0) });
        selectProject(created.id);
      }
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const error = create.error instanceof ApiError ? create.error : null;
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`New ${kind}`}>
      <label>
        <span>{kind === 'workspace' ? 'Workspace name' : 'Project name'}</span>
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} autoFocus aria-invalid={error ? true : undefined} />
      </label>
      {error ? (
        <p className="field-error" role="alert">
          {error.fieldErrors().name ?? error.message}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={create.isPending}>
        Create
      </button>
      <button type="button" className="button ghost" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}
