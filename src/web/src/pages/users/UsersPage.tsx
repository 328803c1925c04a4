import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useMe } from '../../app/session';
import type { GlobalPermission, PasswordResetIssued, UpdateUser, User } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyField } from '../../components/CopyField';
import { CreateForm } from '../../components/CreateForm';
import { FormDialog } from '../../components/FormDialog';
import { FormProblem } from '../../components/FormProblem';
import { ShownOnce } from '../../components/ShownOnce';
import '../admin.css';
import { emptyUser, userFields, UserFormFields, type UserFields } from './UserForm';

interface IssuedReset extends PasswordResetIssued {
  user: User;
}

/** The link the user opens: the UI's reset page with the secret, on this Controller's address. */
const resetLink = (token: string) => `${window.location.origin}/reset-password?token=${encodeURIComponent(token)}`;

const rights = (u: User) => [u.globalAdmin ? 'Global administrator' : '', ...u.globalPermissions].filter(Boolean);

export function UsersPage() {
  const me = useMe();
  const client = useQueryClient();
  const pager = useCursorPager();
  const users = useQuery({ queryKey: queryKeys.users.list(pager.cursor), queryFn: () => api.users.list({ cursor: pager.cursor }) });
  const [editing, setEditing] = useState<User>();
  const [issued, setIssued] = useState<IssuedReset>();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.users.all });
  const reset = useMutation({
    mutationFn: async (user: User): Promise<IssuedReset> => ({ ...(await api.users.issueReset(user.id)), user }),
    onSuccess: setIssued,
  });
  // Shown for every user: lockouts live in the Controller's memory and no list says whose are on.
  const unlock = useMutation({
    mutationFn: async (user: User): Promise<User> => {
      await api.users.unlock(user.id);
      return user;
    },
  });

  const columns: Column<User>[] = [
    { header: 'Username', essential: true, cell: (u) => <strong>{u.username}</strong> },
    { header: 'Display name', cell: (u) => u.displayName },
    { header: 'Email', cell: (u) => u.email },
    { header: 'Rights', cell: (u) => (rights(u).length ? rights(u).join(', ') : '—') },
    { header: 'Password', cell: (u) => (u.passwordChangeRequired ? <span className="marker">Must change</span> : 'Set') },
    { header: 'Two-factor', cell: (u) => (u.totpEnabled ? 'On' : 'Off') },
    { header: 'Created', cell: (u) => formatTime(u.createdAt) },
    {
      header: 'Actions', essential: true, cell: (u) => (
        <div className="row-actions">
          <button type="button" onClick={() => setEditing(u)}>Edit<span className="visually-hidden"> {u.username}</span></button>
          <button type="button" onClick={() => reset.mutate(u)} disabled={reset.isPending}>Reset password<span className="visually-hidden"> of {u.username}</span></button>
          <button type="button" onClick={() => unlock.mutate(u)} disabled={unlock.isPending}>Unlock<span className="visually-hidden"> {u.username}</span></button>
          {u.totpEnabled && me.data?.globalAdmin ? (
            <ConfirmButton
              title={`Reset two-factor authentication of ${u.username}?`} confirmLabel="Reset two-factor" action={() => api.users.resetTotp(u.id)} onDone={() => void refresh()}
              description={`For a lost device: ${u.displayName} then signs in with the password alone and may set up an authenticator app again.`}
            >Reset two-factor<span className="visually-hidden"> of {u.username}</span></ConfirmButton>
          ) : null}
          <ConfirmButton
            title={`Delete ${u.username}?`} confirmLabel="Delete" action={() => api.users.delete(u.id)} onDone={() => void refresh()}
            description={`${u.displayName}'s sessions, API tokens and team memberships go with the account. The audit log keeps what they did.`}
          >Delete<span className="visually-hidden"> {u.username}</span></ConfirmButton>
        </div>
      ),
    },
  ];

  return (
    <section>
      <h1>Users</h1>
      {issued ? (
        <ShownOnce title={`Password-reset link for ${issued.user.username}`} onDone={() => setIssued(undefined)}>
          <p>Hand this link to {issued.user.displayName}. It works once, until {formatTime(issued.expiresAt)}, and ends every session they have.</p>
          <CopyField label="Reset link" value={resetLink(issued.token)} />
        </ShownOnce>
      ) : null}
      <ProblemAlert error={reset.error} />
      <ProblemAlert error={unlock.error} />
      {unlock.isSuccess ? <p role="status" className="success">{unlock.data.username} is unlocked: failed attempts no longer hold them back.</p> : null}
      <ProblemAlert error={users.error} />
      {users.data ? <DataTable caption="Users" columns={columns} rows={users.data.items} rowKey={(u) => u.id} empty="No users." /> : users.error ? null : <Loading what="users" />}
      <Pager pager={pager} nextCursor={users.data?.nextCursor} label="Users pages" />
      {editing ? <EditUser key={editing.id} user={editing} onClose={() => setEditing(undefined)} onSaved={() => void refresh()} /> : null}
      <NewUserForm onCreated={() => void refresh()} />
    </section>
  );
}

function NewUserForm({ onCreated }: { onCreated: () => void }) {
  return (
    <CreateForm
      noun="user" empty={emptyUser} create={api.users.create} onCreated={onCreated} fields={userFields}
      body={(value) => ({ ...value, username: value.username.trim(), email: value.email.trim() })}
      done={(user) => <>User {user.username} created; they must change the password at the first sign-in.</>}
    >
      {(value, onChange, error) => <UserFormFields value={value} onChange={onChange} error={error} creating />}
    </CreateForm>
  );
}

/** Only what changed is sent: PATCH /users/{id} needs at least one field. */
function changes(user: User, value: UserFields): UpdateUser {
  const change: UpdateUser = {};
  if (value.email !== user.email) change.email = value.email.trim();
  if (value.displayName !== user.displayName) change.displayName = value.displayName;
  if (value.globalAdmin !== user.globalAdmin) change.globalAdmin = value.globalAdmin;
  if ([...value.globalPermissions].sort().join() !== [...user.globalPermissions].sort().join()) change.globalPermissions = value.globalPermissions;
  return change;
}

function EditUser({ user, onClose, onSaved }: { user: User; onClose: () => void; onSaved: () => void }) {
  const [value, setValue] = useState<UserFields>({ ...emptyUser, ...user, password: '', globalPermissions: user.globalPermissions as GlobalPermission[] });
  const save = useMutation({
    mutationFn: (change: UpdateUser) => api.users.update(user.id, change),
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  const submit = () => {
    const change = changes(user, value);
    if (Object.keys(change).length === 0) return onClose();
    save.mutate(change);
  };
  return (
    <FormDialog open title={`Edit ${user.username}`} submitLabel="Save user" onSubmit={submit} onClose={onClose} pending={save.isPending}>
      <UserFormFields value={value} onChange={setValue} error={save.error} creating={false} />
      <FormProblem error={save.error} fields={userFields} />
    </FormDialog>
  );
}
