import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { policiesUsing, usePolicies } from '../policies/api';
import { useMembers } from '../policies/lookups';
import { explainError, useAccess } from '../ui/permission';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useTeam, useTeamMutations, type Team } from './api';

/** One team: its members (admins add and remove them), its name, and the policies that page it. */
export function TeamDetailPage() {
  const id = Number(useParams().id);
  const team = useTeam(id);
  if (team.isPending) return <Skeleton label="Loading the team" lines={5} />;
  if (team.isError)
    return (
      <p className="form-error" role="alert">
        The team could not be loaded: {explainError(team.error)}
      </p>
    );
  return <TeamView team={team.data} />;
}

function TeamView({ team }: { team: Team }) {
  const { canAdmin } = useAccess();
  const policies = usePolicies(team.workspaceId);
  const using = policiesUsing(policies.data ?? [], `TEAM:${team.id}`);
  const { removeMember } = useTeamMutations();
  const toast = useToast();
  return (
    <>
      <p>
        <Link to="/teams">All teams</Link>
      </p>
      <h1>{team.name}</h1>
      {team.description ? <p>{team.description}</p> : null}
      <section aria-labelledby="members-title" className="card">
        <h2 id="members-title">Members</h2>
        {team.members.length === 0 ? (
          <p className="muted">Nobody yet: a step that pages this team reaches nobody.</p>
        ) : (
          <ul className="member-list">
            {team.members.map((m) => (
              <li key={m.id} data-user-id={m.userId}>
                <span>
                  {m.name ?? m.email} <span className="muted">{m.name ? m.email : ''}</span>
                </span>
                {canAdmin ? (
                  <button
                    type="button"
                    className="button ghost"
                    aria-label={`Remove ${m.name ?? m.email} from ${team.name}`}
                    disabled={removeMember.isPending}
                    onClick={() =>
                      removeMember.mutate(m.id, {
                        onSuccess: () => toast({ title: `Removed ${m.name ?? m.email}` }),
                        onError: (err) => toast({ title: 'Could not remove the member', description: explainError(err), tone: 'error' }),
                      })
                    }
                  >
                    Remove
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
        {canAdmin ? <AddMember team={team} /> : null}
      </section>
      <section aria-labelledby="used-title">
        <h2 id="used-title">Paged by</h2>
        {using.length === 0 ? (
          <p className="muted">No escalation policy pages this team.</p>
        ) : (
          <ul>
            {using.map((p) => (
              <li key={p.id}>
                <Link to={`/policies/${p.id}`}>{p.name}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      {canAdmin ? <EditTeam team={team} /> : null}
    </>
  );
}

function AddMember({ team }: { team: Team }) {
  const members = useMembers(team.workspaceId);
  const { addMember } = useTeamMutations();
  const toast = useToast();
  const [userId, setUserId] = useState(0);
  const present = new Set(team.members.map((m) => m.userId));
  const candidates = (members.data ?? []).filter((m) => !present.has(m.userId));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const person = candidates.find((c) => c.userId === userId);
    addMember.mutate(
      { teamId: team.id, userId },
      {
        onSuccess: () => {
          toast({ title: `Added ${person?.name ?? person?.email ?? 'the member'} to ${team.name}` });
          setUserId(0);
        },
      },
    );
  };
  if (candidates.length === 0) return <p className="muted">Everyone in the workspace is in this team.</p>;
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Add a member">
      <label htmlFor="add-member">Add a workspace member</label>
      <select id="add-member" name="userId" value={userId} onChange={(e) => setUserId(Number(e.target.value))}>
        <option value={0}>Choose…</option>
        {candidates.map((c) => (
          <option key={c.userId} value={c.userId}>
            {c.name ? `${c.name} (${c.email})` : c.email}
          </option>
        ))}
      </select>
      <button type="submit" className="button" disabled={userId === 0 || addMember.isPending}>
        Add
      </button>
      {addMember.error ? (
        <p className="form-error" role="alert">
          {explainError(addMember.error)}
        </p>
      ) : null}
    </form>
  );
}

function EditTeam({ team }: { team: Team }) {
  const { update, remove } = useTeamMutations();
  const toast = useToast();
  const navigate = useNavigate();
  const [name, setName] = useState(team.name);
  const [description, setDescription] = useState(team.description ?? '');
  const [confirming, setConfirming] = useState(false);
  const errors = update.error instanceof ApiError ? update.error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate(
      { id: team.id, body: { name, description: description.trim() === '' ? null : description } },
      { onSuccess: (saved) => toast({ title: `Saved “${saved.name}”` }) },
    );
  };
  return (
    <form className="card stack-form" onSubmit={submit} aria-label="Edit the team">
      <h2>Edit the team</h2>
      <Field label="Team name" error={errors.name}>
        {(aria) => <input {...aria} name="name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description" error={errors.description}>
        {(aria) => <input {...aria} name="description" maxLength={255} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {update.error ? (
        <p className="form-error" role="alert">
          {explainError(update.error)}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={update.isPending}>
          Save
        </button>
        <button type="button" className="button danger" aria-expanded={confirming} onClick={() => setConfirming(!confirming)}>
          Delete team
        </button>
      </div>
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm delete">
          <p>Delete “{team.name}”? A team that a policy still pages cannot be deleted.</p>
          <button
            type="button"
            className="button danger"
            onClick={() =>
              remove.mutate(team.id, {
                onSuccess: () => {
                  toast({ title: `Deleted “${team.name}”` });
                  navigate('/teams');
                },
                onError: (err) => toast({ title: 'Could not delete the team', description: explainError(err), tone: 'error' }),
              })
            }
          >
            Delete for good
          </button>
        </div>
      ) : null}
    </form>
  );
}
