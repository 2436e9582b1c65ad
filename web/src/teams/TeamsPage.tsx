import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { ApiError } from '../api/client';
import { explainError, useAccess } from '../ui/permission';
import { EmptyState } from '../ui/EmptyState';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { useWorkspace } from '../workspace/context';
import { useTeamMutations, useTeams } from './api';

/** The workspace's teams (a policy step can page a whole team) and, for admins, a form to add one. */
export function TeamsPage() {
  const { workspaceId } = useWorkspace();
  const { canAdmin } = useAccess();
  const teams = useTeams(workspaceId);
  return (
    <>
      <h1>Teams</h1>
      {teams.isPending ? (
        <Skeleton label="Loading teams" lines={4} />
      ) : teams.isError ? (
        <p className="form-error" role="alert">
          Teams could not be loaded: {explainError(teams.error)}
        </p>
      ) : teams.data.length === 0 ? (
        <EmptyState title="No teams yet">
          A team is a group of people an escalation step can page at once. {canAdmin ? 'Create one below.' : 'An admin of the workspace can create one.'}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data-table teams-table">
            <caption className="visually-hidden">Teams ({teams.data.length})</caption>
            <thead>
              <tr>
                <th scope="col">Team</th>
                <th scope="col">Description</th>
                <th scope="col">Members</th>
              </tr>
            </thead>
            <tbody>
              {teams.data.map((team) => (
                <tr key={team.id} data-team-id={team.id}>
                  <th scope="row">
                    <Link to={`/teams/${team.id}`}>{team.name}</Link>
                  </th>
                  <td>{team.description ?? ''}</td>
                  <td>{team.members.length === 0 ? 'Nobody yet' : team.members.map((m) => m.name ?? m.email).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canAdmin && workspaceId !== null ? <NewTeam workspaceId={workspaceId} /> : null}
    </>
  );
}

function NewTeam({ workspaceId }: { workspaceId: number }) {
  const { create } = useTeamMutations();
  const toast = useToast();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const errors = create.error instanceof ApiError ? create.error.fieldErrors() : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { workspaceId, name, ...(description.trim() === '' ? {} : { description }) },
      {
        onSuccess: (team) => {
          toast({ title: `Team “${team.name}” created` });
          setName('');
          setDescription('');
        },
      },
    );
  };
  return (
    <form className="card stack-form new-team" onSubmit={submit} aria-label="New team">
      <h2>New team</h2>
      <Field label="Team name" error={errors.name}>
        {(aria) => <input {...aria} name="name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description" error={errors.description}>
        {(aria) => <input {...aria} name="description" maxLength={255} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {create.error ? (
        <p className="form-error" role="alert">
          {explainError(create.error)}
        </p>
      ) : null}
      <button type="submit" className="button primary" disabled={create.isPending}>
        Create team
      </button>
    </form>
  );
}
