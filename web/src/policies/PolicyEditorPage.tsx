import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { explainError, useAccess } from '../ui/permission';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useIntegrations, useProjects } from '../workspace/queries';
import { useDeletePolicy, useDeleteRules, usePolicies, usePolicy, useRules, useSavePolicy, type Policy } from './api';
import { blankDraft, fromPolicy, fromRules, toBody, toSteps, type Draft } from './draft';
import { useTargetOptions } from './lookups';
import { PolicySummary } from './PolicySummary';
import { Preview } from './Preview';
import { StepsEditor } from './StepsEditor';

/** `/policies/new` (optionally `?fromProject=` to turn a project's legacy rules into a policy) and `/policies/:id`. */
export function PolicyEditorPage() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const { workspaceId } = useWorkspace();
  const policies = usePolicies(workspaceId);
  const fromProject = Number(params.get('fromProject')) || null;
  if (workspaceId === null || policies.isPending) return <Skeleton label="Loading the policy" lines={6} />;
  if (policies.isError)
    return (
      <p className="form-error" role="alert">
        {explainError(policies.error)}
      </p>
    );
  const free = Math.max(-1, ...policies.data.map((p) => p.priority)) + 1;
  if (id !== undefined) return <Existing id={Number(id)} workspaceId={workspaceId} />;
  if (fromProject !== null) return <FromRules projectId={fromProject} workspaceId={workspaceId} priority={free} />;
  return <PolicyForm workspaceId={workspaceId} existing={null} initial={blankDraft(free)} />;
}

function Existing({ id, workspaceId }: { id: number; workspaceId: number }) {
  const policy = usePolicy(id);
  const { canAdmin } = useAccess();
  if (policy.isPending) return <Skeleton label="Loading the policy" lines={6} />;
  if (policy.isError)
    return (
      <p className="form-error" role="alert">
        The policy could not be loaded: {explainError(policy.error)}
      </p>
    );
  if (!canAdmin) return <PolicySummary policy={policy.data} />;
  return <PolicyForm key={policy.data.updatedAt} workspaceId={workspaceId} existing={policy.data} initial={fromPolicy(policy.data)} />;
}

function FromRules({ projectId, workspaceId, priority }: { projectId: number; workspaceId: number; priority: number }) {
  const rules = useRules(projectId);
  const projects = useProjects(workspaceId);
  if (rules.isPending || projects.isPending) return <Skeleton label="Loading the legacy rules" lines={4} />;
  if (rules.isError)
    return (
      <p className="form-error" role="alert">
        {explainError(rules.error)}
      </p>
    );
  const name = projects.data?.find((p) => p.id === projectId)?.name ?? `Project ${projectId}`;
  return <PolicyForm workspaceId={workspaceId} existing={null} initial={fromRules(name, projectId, rules.data, priority)} legacyRuleIds={rules.data.map((r) => r.id)} />;
}

function PolicyForm({ workspaceId, existing, initial, legacyRuleIds = [] }: { workspaceId: number; existing: Policy | null; initial: Draft; legacyRuleIds?: number[] }) {
  const [draft, setDraft] = useState(initial);
  const [dropRules, setDropRules] = useState(true);
  const [confirming, setConfirming] = useState(false);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const { options } = useTargetOptions(workspaceId);
  const projects = useProjects(workspaceId);
  const integrations = useIntegrations(workspaceId);
  const save = useSavePolicy();
  const remove = useDeletePolicy();
  const deleteRules = useDeleteRules();
  const toast = useToast();
  const navigate = useNavigate();
  const apiError = save.error instanceof ApiError ? save.error : null;
  const errors = apiError?.fieldErrors() ?? {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(
      { id: existing?.id ?? null, workspaceId, draft: toBody(draft) },
      {
        onSuccess: async (saved) => {
          if (legacyRuleIds.length > 0 && dropRules) await deleteRules.mutateAsync(legacyRuleIds);
          toast({ title: existing ? `Saved “${saved.name}”` : `Created “${saved.name}”` });
          navigate('/policies');
        },
      },
    );
  };
  const title = existing ? `Edit ${existing.name}` : 'New escalation policy';
  return (
    <div className="policy-editor">
      <form className="check-form policy-form" onSubmit={submit} aria-label={title}>
        <h1>{title}</h1>
        <Field label="Name" error={errors.name}>
          {(aria) => <input {...aria} name="name" required maxLength={255} value={draft.name} onChange={(e) => set({ name: e.target.value })} />}
        </Field>
        <fieldset>
          <legend>Which incidents</legend>
          <label className="check-row">
            <input type="checkbox" name="catchAll" checked={draft.catchAll} onChange={(e) => set({ catchAll: e.target.checked })} /> Every project (catch-all)
          </label>
          {draft.catchAll
            ? null
            : (projects.data ?? []).map((p) => (
                <label key={p.id} className="check-row">
                  <input
                    type="checkbox"
                    checked={draft.projectIds.includes(p.id)}
                    onChange={(e) => set({ projectIds: e.target.checked ? [...draft.projectIds, p.id] : draft.projectIds.filter((x) => x !== p.id) })}
                  />{' '}
                  {p.name}
                </label>
              ))}
          {errors.projectIds ? <p className="field-error">{errors.projectIds}</p> : null}
        </fieldset>
        {integrations.data && integrations.data.length > 0 ? (
          <fieldset>
            <legend>Alerts from integrations</legend>
            <p className="muted" id="integrations-help">
              Also the incidents these integrations open, whatever their project.
            </p>
            {integrations.data.map((i) => (
              <label key={i.id} className="check-row">
                <input
                  type="checkbox"
                  name="integrationIds"
                  value={i.id}
                  aria-describedby="integrations-help"
                  checked={draft.integrationIds.includes(i.id)}
                  onChange={(e) => set({ integrationIds: e.target.checked ? [...draft.integrationIds, i.id] : draft.integrationIds.filter((x) => x !== i.id) })}
                />{' '}
                {i.name}
              </label>
            ))}
            {errors.integrationIds ? <p className="field-error">{errors.integrationIds}</p> : null}
          </fieldset>
        ) : null}
        <StepsEditor steps={draft.steps} options={options} onChange={(steps) => set({ steps })} />
        <div className="two-col">
          <Field label="Repeats" hint="How many more times the steps run while nobody acknowledges" error={errors.repeatCount}>
            {(aria) => <input {...aria} name="repeatCount" type="number" min={0} max={10} value={draft.repeatCount} onChange={(e) => set({ repeatCount: e.target.value })} />}
          </Field>
          <Field label="Acknowledgement timeout (minutes)" hint="Escalate again when acknowledged but not resolved after this long; empty: never" error={errors.ackTimeoutMinutes}>
            {(aria) => (
              <input {...aria} name="ackTimeoutMinutes" type="number" min={1} max={10080} value={draft.ackTimeout} onChange={(e) => set({ ackTimeout: e.target.value })} />
            )}
          </Field>
          <Field label="Priority" hint="0 is tried first; unique in the workspace" error={errors.priority}>
            {(aria) => <input {...aria} name="priority" type="number" min={0} max={10000} required value={draft.priority} onChange={(e) => set({ priority: e.target.value })} />}
          </Field>
        </div>
        <label className="check-row">
          <input type="checkbox" name="enabled" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Enabled
        </label>
        {legacyRuleIds.length > 0 ? (
          <label className="check-row">
            <input type="checkbox" checked={dropRules} onChange={(e) => setDropRules(e.target.checked)} /> Delete the project's {legacyRuleIds.length} legacy rule
            {legacyRuleIds.length === 1 ? '' : 's'} once the policy is saved
          </label>
        ) : null}
        {save.error ? (
          <div className="form-error" role="alert">
            <p>{explainError(save.error)}</p>
            {apiError?.body?.details?.length ? (
              <ul>
                {apiError.body.details.map((d, i) => (
                  <li key={i}>
                    {d.path}: {d.message}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        <div className="button-row">
          <button type="submit" className="button primary" disabled={save.isPending}>
            {existing ? 'Save' : 'Create policy'}
          </button>
          <Link className="button ghost" to="/policies">
            Cancel
          </Link>
          {existing ? (
            <button type="button" className="button danger" aria-expanded={confirming} onClick={() => setConfirming(!confirming)}>
              Delete
            </button>
          ) : null}
        </div>
        {existing && confirming ? (
          <div className="confirm" role="group" aria-label="Confirm delete">
            <p>Delete “{existing.name}”? Incidents it would have routed fall to the next policy, the project's legacy rules, or every channel.</p>
            <button
              type="button"
              className="button danger"
              onClick={() =>
                remove.mutate(existing.id, {
                  onSuccess: () => {
                    toast({ title: `Deleted “${existing.name}”` });
                    navigate('/policies');
                  },
                  onError: (err) => toast({ title: 'Could not delete the policy', description: explainError(err), tone: 'error' }),
                })
              }
            >
              Delete for good
            </button>
          </div>
        ) : null}
      </form>
      <Preview workspaceId={workspaceId} steps={toSteps(draft)} repeatCount={Number(draft.repeatCount) || 0} options={options} />
    </div>
  );
}
