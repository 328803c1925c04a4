import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { TotpEnrolment } from '../../api/types';
import { useMe } from '../../app/session';
import { TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { CopyField } from '../../components/CopyField';
import '../admin.css';
import { PasswordSection } from './PasswordSection';
import { RecoveryCodes } from './RecoveryCodes';
import { SshKeysSection } from './SshKeysSection';
import { TotpQrCode } from './TotpQrCode';

/** Your account's sign-in security: the password, the TOTP second factor (on with an app, off with a code), and SSH keys for SFTP. */
export function SecurityPage() {
  const me = useMe();
  const client = useQueryClient();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const refreshMe = () => client.invalidateQueries({ queryKey: queryKeys.me });
  if (!me.data) return <Loading what="your account" />;
  return (
    <section>
      <h1>Security</h1>
      <PasswordSection />
      <h2>Two-factor authentication</h2>
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} username={me.data.username} onDone={() => setRecoveryCodes(undefined)} />
      ) : null}
      {me.data.totpEnabled
        ? <DisableTotp onDone={() => void refreshMe()} />
        : <EnableTotp onEnabled={(codes) => { setRecoveryCodes(codes); void refreshMe(); }} />}
      <SshKeysSection />
    </section>
  );
}

function EnableTotp({ onEnabled }: { onEnabled: (recoveryCodes: string[]) => void }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment>();
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const enrol = useMutation({ mutationFn: api.me.enrolTotp, onSuccess: setEnrolment });
  const confirm = useMutation({
    mutationFn: api.me.confirmTotp,
    onSuccess: (answer) => {
      setEnrolment(undefined);
      setCode('');
      setPassword('');
      onEnabled(answer.recoveryCodes);
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    // Left empty by an account made by single sign-on: it has no password, and a recent sign-in stands for it.
    confirm.mutate({ code: code.trim(), ...(password ? { password } : {}) });
  };
  if (!enrolment) {
    return (
      <div className="card admin-form">
        <p>Off. With it on, signing in with your password also asks for a code from an authenticator app on your phone.</p>
        <ProblemAlert error={enrol.error} />
        <div className="actions">
          <button type="button" className="primary" onClick={() => enrol.mutate()} disabled={enrol.isPending}>Set up two-factor authentication</button>
        </div>
      </div>
    );
  }
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="totp-setup-heading">
      <h3 id="totp-setup-heading">Scan this with your authenticator app</h3>
      <TotpQrCode uri={enrolment.otpauthUri} />
      <CopyField label="Secret" value={enrolment.secret} />
      <CopyField label="Setup link" value={enrolment.otpauthUri} />
      <TextField
        label="Code from the app" field="code" error={confirm.error} value={code} onChange={(e) => setCode(e.target.value)}
        autoComplete="one-time-code" inputMode="numeric" hint="Type the 6-digit code the app shows, to prove it is set up." required
      />
      <TextField
        label="Current password" field="password" type="password" error={confirm.error} value={password} onChange={(e) => setPassword(e.target.value)}
        autoComplete="current-password" hint="To prove it is you. Signed up through single sign-on? Leave it empty and turn it on within 10 minutes of signing in."
      />
      <ProblemAlert error={confirm.error} fields={['code', 'password']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={confirm.isPending}>Turn on two-factor authentication</button>
        <button type="button" onClick={() => setEnrolment(undefined)}>Cancel</button>
      </div>
    </form>
  );
}

function DisableTotp({ onDone }: { onDone: () => void }) {
  const [code, setCode] = useState('');
  const disable = useMutation({ mutationFn: api.me.disableTotp, onSuccess: () => { setCode(''); onDone(); } });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    disable.mutate({ code: code.trim() });
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="totp-off-heading">
      <p>On: signing in with your password also asks for a code from your authenticator app.</p>
      <h3 id="totp-off-heading">Turn it off</h3>
      <TextField
        label="Authentication code" field="code" error={disable.error} value={code} onChange={(e) => setCode(e.target.value)}
        autoComplete="one-time-code" hint="The code your app shows now, or an unused recovery code." required
      />
      <ProblemAlert error={disable.error} fields={['code']} />
      <div className="actions">
        <button type="submit" className="danger-outline" disabled={disable.isPending}>Turn off two-factor authentication</button>
      </div>
    </form>
  );
}
