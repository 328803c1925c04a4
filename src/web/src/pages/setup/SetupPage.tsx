import { useMutation } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { useSetupStatus, useSignedIn } from '../../app/session';
import { TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { parseWholeNumber } from '../../format/units';

const fields = ['setupCode', 'username', 'email', 'displayName', 'password', 'network.name', 'network.address', 'network.port'];

/**
 * First run: the one-time code from `<data-dir>/setup-code` creates the first administrator and
 * the network. The page never shows the code; it only asks for it.
 */
export function SetupPage() {
  const status = useSetupStatus();
  const signedIn = useSignedIn();
  const navigate = useNavigate();
  const [form, setForm] = useState({ setupCode: '', username: '', email: '', displayName: '', password: '', networkName: '', networkAddress: '', networkPort: '25565' });
  const [portError, setPortError] = useState<string>();
  const setup = useMutation({
    mutationFn: api.setup.run,
    onSuccess: (user) => {
      signedIn(user);
      void navigate('/servers', { replace: true });
    },
  });
  if (status.data?.done && !setup.isSuccess) return <Navigate to="/sign-in" replace />;
  if (!status.data) return <main className="centered">{status.error ? <ProblemAlert error={status.error} /> : <Loading what="setup" />}</main>;

  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const port = parseWholeNumber(form.networkPort);
    setPortError(port === undefined ? 'Enter a port number from 1 to 65535.' : undefined);
    if (port === undefined) return;
    setup.mutate({
      setupCode: form.setupCode.trim(), username: form.username, email: form.email, displayName: form.displayName, password: form.password,
      network: { name: form.networkName, address: form.networkAddress, port },
    });
  };
  const err = setup.error;
  return (
    <main className="centered">
      <form className="card" onSubmit={submit} noValidate>
        <h1>Set up Cairn</h1>
        <p>Enter the one-time setup code the Controller wrote to <code>setup-code</code> in its data directory, then create the first administrator and the network players connect to.</p>
        <TextField label="Setup code" field="setupCode" error={err} value={form.setupCode} onChange={set('setupCode')} autoComplete="off" spellCheck={false} required />
        <fieldset>
          <legend>Administrator</legend>
          <TextField label="Username" field="username" error={err} value={form.username} onChange={set('username')} autoComplete="username" required />
          <TextField label="Email" field="email" type="email" error={err} value={form.email} onChange={set('email')} autoComplete="email" required />
          <TextField label="Display name" field="displayName" error={err} value={form.displayName} onChange={set('displayName')} autoComplete="name" required />
          <TextField label="Password" field="password" type="password" error={err} value={form.password} onChange={set('password')} autoComplete="new-password" hint="8 to 256 characters." required />
        </fieldset>
        <fieldset>
          <legend>Network</legend>
          <TextField label="Network name" field="network.name" error={err} value={form.networkName} onChange={set('networkName')} required />
          <TextField label="Network address" field="network.address" error={err} value={form.networkAddress} onChange={set('networkAddress')} hint="Host name or IP address players connect to, without a port." required />
          <TextField label="Network port" field="network.port" error={err} localError={portError} inputMode="numeric" value={form.networkPort} onChange={set('networkPort')} required />
        </fieldset>
        <ProblemAlert error={err} fields={fields} />
        <button type="submit" className="primary" disabled={setup.isPending}>{setup.isPending ? 'Creating administrator…' : 'Create administrator'}</button>
      </form>
    </main>
  );
}
