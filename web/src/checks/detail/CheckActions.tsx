import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, unwrap } from '../../api/client';
import { useToast } from '../../ui/toast';
import { useWorkspace } from '../../workspace/context';
import { useProjects } from '../../workspace/queries';
import { useInvalidateChecks, usePauseResume, type CheckDetail } from '../api';

/** Edit, pause or resume, move to another project, delete (after an inline confirmation). */
export function CheckActions({ check }: { check: CheckDetail }) {
  const toast = useToast();
  const navigate = useNavigate();
  const invalidate = useInvalidateChecks();
  const pauseResume = usePauseResume();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/checks/{id}', { params: { path: { id: check.id } } })),
    onSuccess: async () => {
      await invalidate();
      toast({ title: `Deleted “${check.name}”` });
      navigate('/checks');
    },
    onError: (err) => toast({ title: 'Could not delete the check', description: err.message, tone: 'error' }),
  });
  const toggle = () =>
    pauseResume.mutate(
      { id: check.id, pause: !check.paused },
      {
        onSuccess: () => toast({ title: check.paused ? `Resumed “${check.name}”` : `Paused “${check.name}”` }),
        onError: (err) => toast({ title: 'Could not change the check', description: err.message, tone: 'error' }),
      },
    );
  return (
    <div className="check-actions">
      <div className="button-row">
        <Link className="button" to={`/checks/${check.id}/edit`}>
          Edit
        </Link>
        <button type="button" className="button" disabled={pauseResume.isPending} onClick={toggle}>
          {check.paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" className="button danger" aria-expanded={confirming} onClick={() => setConfirming(!confirming)}>
          Delete
        </button>
      </div>
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm delete">
          <p>Delete “{check.name}”? Its signals are removed and its open incidents resolved. This cannot be undone.</p>
          <div className="button-row">
            <button type="button" className="button danger" autoFocus disabled={remove.isPending} onClick={() => remove.mutate()}>
              Delete for good
            </button>
            <button type="button" className="button ghost" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        </div>
      ) : null}
      <TransferForm check={check} />
    </div>
  );
}

function TransferForm({ check }: { check: CheckDetail }) {
  const { workspaceId } = useWorkspace();
  const projects = useProjects(workspaceId);
  const toast = useToast();
  const invalidate = useInvalidateChecks();
  const others = (projects.data ?? []).filter((p) => p.id !== check.projectId);
  const [target, setTarget] = useState('');
  const transfer = useMutation({
    mutationFn: (projectId: number) => unwrap(api.PATCH('/checks/{id}/transfer', { params: { path: { id: check.id } }, body: { projectId } })),
    onSuccess: async (_check, projectId) => {
      await invalidate();
      toast({ title: `Moved to ${others.find((p) => p.id === projectId)?.name ?? 'the project'}` });
      setTarget('');
    },
    onError: (err) => toast({ title: 'Could not move the check', description: err.message, tone: 'error' }),
  });
  if (others.length === 0) return null;
  return (
    <form
      className="inline-form"
      aria-label="Move to another project"
      onSubmit={(e) => {
        e.preventDefault();
        if (target !== '') transfer.mutate(Number(target));
      }}
    >
      <label>
        <span>Move to project</span>
        <select value={target} onChange={(e) => setTarget(e.target.value)} required>
          <option value="">Choose…</option>
          {others.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button" disabled={transfer.isPending || target === ''}>
        Move
      </button>
    </form>
  );
}
