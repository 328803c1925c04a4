import { useMutation } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { useMe, useSignedIn } from '../../app/session';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { isTotpRequired, TotpField } from './TotpField';
import { SsoButton } from './SsoButton';

/** Only paths of this app: a `from` naming another site is ignored. */
const safeFrom = (from: string | null) => (from && from.startsWith('/') && !from.startsWith('//') ? from : '/servers');

export function SignInPage() {
  const me = useMe();
  const signedIn = useSignedIn();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const login = useMutation({
    mutationFn: api.auth.login,
    onSuccess: (user) => {
      signedIn(user);
      void navigate(user.passwordChangeRequired ? '/change-password' : safeFrom(params.get('from')), { replace: true });
    },
  });
  if (me.data && !login.isSuccess) return <Navigate to={safeFrom(params.get('from'))} replace />;
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    login.mutate({ username, password, ...(totpCode ? { totpCode: totpCode.trim() } : {}) });
  };
  return (
    <main className="centered">
      <form className="card narrow" onSubmit={submit} noValidate>
        <h1>Sign in to Cairn</h1>
        <TextField label="Username or email" field="username" error={login.error} value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" required />
        <TextField label="Password" field="password" type="password" error={login.error} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="current-password" required />
        <TotpField error={login.error} value={totpCode} onChange={setTotpCode} />
        {isTotpRequired(login.error) ? null : <ProblemAlert error={login.error} fields={['username', 'password', 'totpCode']} />}
        <button type="submit" className="primary" disabled={login.isPending}>{login.isPending ? 'Signing in…' : 'Sign in'}</button>
        <SsoButton />
      </form>
    </main>
  );
}
