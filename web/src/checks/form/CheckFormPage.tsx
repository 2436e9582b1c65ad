import { useMutation } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api, ApiError, unwrap } from '../../api/client';
import { EmptyState } from '../../ui/EmptyState';
import { Skeleton } from '../../ui/Skeleton';
import { useToast } from '../../ui/toast';
import { useWorkspace } from '../../workspace/context';
import { useProjects } from '../../workspace/queries';
import { useCheck, useInvalidateChecks, type CheckDetail } from '../api';
import { CommonFields } from './CommonFields';
import { HeartbeatFields } from './HeartbeatFields';
import { HttpFields } from './HttpFields';
import { emptyValues, parseHeaders, toBody, valuesOf, type FormValues } from './model';

/** `/checks/new` and `/checks/:id/edit`. */
export function CheckFormPage() {
  const { id } = useParams();
  const { projectId } = useWorkspace();
  if (id === undefined) return <CheckForm initial={emptyValues(projectId)} />;
  return <EditLoader id={Number(id)} />;
}

function EditLoader({ id }: { id: number }) {
  const check = useCheck(id);
  if (check.isPending) return <Skeleton lines={10} label="Loading the check" />;
  if (check.isError)
    return (
      <EmptyState title="Check not found">
        It may have been deleted. <Link to="/checks">Back to the checks</Link>.
      </EmptyState>
    );
  return <CheckForm initial={valuesOf(check.data)} existing={check.data} />;
}

function CheckForm({ initial, existing }: { initial: FormValues; existing?: CheckDetail }) {
  const { workspaceId } = useWorkspace();
  const projects = useProjects(workspaceId);
  const navigate = useNavigate();
  const toast = useToast();
  const invalidate = useInvalidateChecks();
  const [values, setValues] = useState(initial);
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const set = (change: Partial<FormValues>) => setValues((v) => ({ ...v, ...change }));
  // Every check belongs to a project: without a choice in the switcher, the workspace's first.
  const firstProject = projects.data?.[0]?.id;
  useEffect(() => {
    if (firstProject !== undefined) setValues((v) => (v.projectId === '' ? { ...v, projectId: String(firstProject) } : v));
  }, [firstProject]);
  const save = useMutation({
    mutationFn: async () => {
      const body = toBody(values);
      if (!existing) return unwrap(api.POST('/checks', { body }));
      // The kind of a check is fixed once it exists.
      const { checkMode: _mode, checkType: _type, ...update } = body;
      return unwrap(api.PATCH('/checks/{id}', { params: { path: { id: existing.id } }, body: update }));
    },
    onSuccess: async (check) => {
      await invalidate();
      toast({ title: existing ? `Saved “${check.name}”` : `Created “${check.name}”` });
      navigate(`/checks/${check.id}`);
    },
  });
  const apiError = save.error instanceof ApiError ? save.error : null;
  const errors = { ...(apiError?.fieldErrors() ?? {}), ...clientErrors };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const headers = values.kind === 'HTTP' ? parseHeaders(values.headers) : { headers: {} };
    setClientErrors(headers.error ? { customHeaders: headers.error } : {});
    if (!headers.error) save.mutate();
  };
  const form = { values, set, errors };
  const title = existing ? `Edit ${existing.name}` : 'New check';
  return (
    <form className="check-form" onSubmit={submit} aria-label={title}>
      <h1>{title}</h1>
      {existing ? null : (
        <fieldset>
          <legend>Kind</legend>
          <div className="radio-row">
            <label>
              <input type="radio" name="kind" checked={values.kind === 'HEARTBEAT'} onChange={() => set({ kind: 'HEARTBEAT', intervalSeconds: '3600' })} /> Heartbeat: a job pings
              Vigil
            </label>
            <label>
              <input type="radio" name="kind" checked={values.kind === 'HTTP'} onChange={() => set({ kind: 'HTTP', intervalSeconds: '300' })} /> HTTP: Vigil requests a URL
            </label>
          </div>
        </fieldset>
      )}
      <CommonFields form={form} projects={projects.data ?? []} />
      {values.kind === 'HEARTBEAT' ? <HeartbeatFields form={form} /> : <HttpFields form={form} />}
      {apiError ? (
        <p className="form-error" role="alert">
          {apiError.message}
          {apiError.body?.details?.length ? ' See the fields marked above.' : ''}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {existing ? 'Save' : 'Create check'}
        </button>
        <Link className="button ghost" to={existing ? `/checks/${existing.id}` : '/checks'}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
