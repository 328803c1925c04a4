import { useMutation } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';

/** Redeems a password-reset link (`/reset-password?token=…`) an administrator handed out. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const [token, setToken] = useState(params.get('token') ?? '');
  const [newPassword, setNew] = useState('');
  const redeem = useMutation({ mutationFn: api.auth.redeemReset });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    redeem.mutate({ token: token.trim(), newPassword });
  };
  if (redeem.isSuccess) {
    return (
      <main className="centered">
        <div className="card narrow">
          <h1>Password reset</h1>
          <p role="status">Your password has been changed. Every earlier session has ended.</p>
          <Link to="/sign-in">Sign in</Link>
        </div>
      </main>
    );
  }
  return (
    <main className="centered">
      <form className="card narrow" onSubmit={submit} noValidate>
        <h1>Reset password</h1>
        {params.get('token') ? null : <TextField label="Reset token" field="token" error={redeem.error} value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" required />}
        <TextField label="New password" field="newPassword" type="password" error={redeem.error} value={newPassword} onChange={(e) => setNew(e.target.value)} autoComplete="new-password" hint="8 to 256 characters." required />
        <ProblemAlert error={redeem.error} fields={params.get('token') ? ['newPassword'] : ['token', 'newPassword']} />
        <button type="submit" className="primary" disabled={redeem.isPending}>{redeem.isPending ? 'Resetting…' : 'Reset password'}</button>
      </form>
    </main>
  );
}
