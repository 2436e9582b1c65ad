import { useState, type FormEvent } from 'react';
import { Field } from '../ui/Field';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/toast';
import { explainError, useAccess } from '../ui/permission';
import { useMemberWrites, useMembers, type Role } from './api';

const ROLES: Role[] = ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'];

/**
 * The workspace's members. Admins add an existing user by e-mail, change roles and remove people;
 * only an owner grants or takes the OWNER role (the API's rule), so others are not offered it.
 */
export function MembersSection({ workspaceId }: { workspaceId: number }) {
  const members = useMembers(workspaceId);
  const writes = useMemberWrites(workspaceId);
  const { canAdmin, role, me } = useAccess();
  const toast = useToast();
  const [email, setEmail] = useState('');
  const [newRole, setNewRole] = useState<Role>('MEMBER');
  const grantable = role === 'OWNER' ? ROLES : ROLES.filter((r) => r !== 'OWNER');
  const invite = (event: FormEvent) => {
    event.preventDefault();
    writes.invite.mutate({ email, role: newRole }, { onSuccess: () => (toast({ title: `Added ${email}` }), setEmail('')) });
  };
  const failed = writes.invite.error ?? writes.setRole.error ?? writes.remove.error;
  return (
    <section className="card section" aria-labelledby="members-title">
      <h2 id="members-title">Members and roles</h2>
      {members.isPending ? (
        <Skeleton label="Loading members" lines={3} />
      ) : members.isError ? (
        <p className="form-error" role="alert">
          {explainError(members.error, role)}
        </p>
      ) : (
        <table className="settings-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              {canAdmin ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {members.data.map((m) => {
              const editable = canAdmin && m.userId !== me?.id && (role === 'OWNER' || m.role !== 'OWNER');
              return (
                <tr key={m.userId} data-member={m.email}>
                  <td>{m.name ?? '—'}</td>
                  <td>{m.email}</td>
                  <td>
                    {editable ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        onChange={(e) => {
                          // Read now: the controlled select shows the old role until the refetch.
                          const chosen = e.target.value as Role;
                          writes.setRole.mutate({ userId: m.userId, role: chosen }, { onSuccess: () => toast({ title: `${m.email} is now ${chosen}` }) });
                        }}
                      >
                        {grantable.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  {canAdmin ? (
                    <td>
                      {editable ? (
                        <button
                          type="button"
                          className="button ghost"
                          aria-label={`Remove ${m.email}`}
                          onClick={() => writes.remove.mutate(m.userId, { onSuccess: () => toast({ title: `Removed ${m.email}` }) })}
                        >
                          Remove
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {canAdmin ? (
        <form className="inline-form" aria-label="Add a member" onSubmit={invite}>
          <Field label="E-mail of an existing user" hint="They must have signed up already.">
            {(aria) => <input {...aria} type="email" name="memberEmail" required value={email} onChange={(e) => setEmail(e.target.value)} />}
          </Field>
          <Field label="Role">
            {(aria) => (
              <select {...aria} name="memberRole" value={newRole} onChange={(e) => setNewRole(e.target.value as Role)}>
                {grantable.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" className="button primary" disabled={writes.invite.isPending}>
            Add member
          </button>
        </form>
      ) : (
        <p className="muted">Your role ({role}) can see the members; an admin or owner adds and removes them.</p>
      )}
      {failed ? (
        <p className="form-error" role="alert">
          {explainError(failed, role)}
        </p>
      ) : null}
    </section>
  );
}
