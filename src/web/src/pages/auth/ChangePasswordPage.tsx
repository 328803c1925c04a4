import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useMe, useSignOut } from '../../app/session';
import { TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { returnPath } from './return-to';

/**
 * The account page, reached from the name in the header: changing the password. Required before
 * anything else while `passwordChangeRequired`; otherwise one can go back without changing it, to
 * the page that led here (the Security page) or the servers page.
 */
export function ChangePasswordPage() {
  const me = useMe();
  const client = useQueryClient();
  const navigate = useNavigate();
  const back = returnPath(useLocation().state);
  const signOut = useSignOut();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState<string>();
  const change = useMutation({
    mutationFn: api.me.changePassword,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: queryKeys.me });
      void navigate(back, { replace: true });
    },
  });
  if (me.data === null) return <Navigate to="/sign-in" replace />;
  if (!me.data) return <main className="centered"><Loading what="your session" /></main>;
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setMismatch(newPassword === repeat ? undefined : 'The two new passwords differ.');
    if (newPassword === repeat) change.mutate({ currentPassword, newPassword });
  };
  return (
    <main className="centered">
      <form className="card narrow" onSubmit={submit} noValidate>
        <h1>Change password</h1>
        <p>Signed in as {me.data.displayName} ({me.data.username}).</p>
        {me.data.passwordChangeRequired ? <p className="notice">You must choose a new password before going on.</p> : null}
        <TextField label="Current password" field="currentPassword" type="password" error={change.error} value={currentPassword} onChange={(e) => setCurrent(e.target.value)} autoComplete="current-password" required />
        <TextField label="New password" field="newPassword" type="password" error={change.error} value={newPassword} onChange={(e) => setNew(e.target.value)} autoComplete="new-password" hint="8 to 256 characters." required />
        <TextField label="Repeat new password" type="password" localError={mismatch} value={repeat} onChange={(e) => setRepeat(e.target.value)} autoComplete="new-password" required />
        <ProblemAlert error={change.error} fields={['currentPassword', 'newPassword']} />
        <div className="actions">
          <button type="submit" className="primary" disabled={change.isPending}>{change.isPending ? 'Changing password…' : 'Change password'}</button>
          {me.data.passwordChangeRequired ? <button type="button" onClick={() => signOut.mutate()}>Sign out</button> : <Link to={back}>Cancel</Link>}
        </div>
      </form>
    </main>
  );
}
