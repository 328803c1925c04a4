import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllRoles } from '../../api/reference-data';
import type { OidcSetting, OidcTeamMapping } from '../../api/types';
import { TextField } from '../../components/Field';
import { CheckboxField } from '../../components/Choices';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormProblem } from '../../components/FormProblem';
import { TeamMappingsField } from './TeamMappingsField';

const fields = ['issuer', 'clientId', 'clientSecret', 'displayName', 'adminGroups', 'redirectUri'];
const listOf = (text: string) => [...new Set(text.split(',').map((g) => g.trim()).filter(Boolean))];

/**
 * The whole single sign-on setting in one form. The client secret is never shown back, so saving
 * asks for it every time.
 */
export function SsoForm({ setting }: { setting: OidcSetting | undefined }) {
  const client = useQueryClient();
  const roles = useAllRoles().data ?? [];
  const [form, setForm] = useState({
    issuer: setting?.issuer ?? '', clientId: setting?.clientId ?? '', clientSecret: '', displayName: setting?.displayName ?? '',
    adminGroups: setting?.adminGroups.join(', ') ?? '',
    // Where this browser reaches the Controller: the Controller never takes it from a request's Host header.
    redirectUri: setting?.redirectUri ?? `${window.location.origin}/api/v1/auth/oidc/callback`,
  });
  const [allowPasswordLogin, setAllowPasswordLogin] = useState(setting?.allowPasswordLogin ?? true);
  const [mappings, setMappings] = useState<OidcTeamMapping[]>(setting?.teamMappings ?? []);
  const refresh = (saved: OidcSetting | undefined) => {
    client.setQueryData(queryKeys.sso.setting, saved ?? null);
    void client.invalidateQueries({ queryKey: queryKeys.sso.methods });
  };
  const save = useMutation({
    mutationFn: api.sso.set,
    onSuccess: (saved) => {
      refresh(saved);
      // Not kept on the page once stored: it is asked for again at the next save.
      setForm((f) => ({ ...f, clientSecret: '' }));
    },
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    save.mutate({
      issuer: form.issuer.trim(), clientId: form.clientId.trim(), clientSecret: form.clientSecret, displayName: form.displayName.trim(),
      adminGroups: listOf(form.adminGroups), teamMappings: mappings.map((m) => ({ ...m, group: m.group.trim() })), allowPasswordLogin,
      ...(setting?.scopes ? { scopes: setting.scopes } : {}), ...(setting?.groupsClaim ? { groupsClaim: setting.groupsClaim } : {}),
      ...(form.redirectUri.trim() ? { redirectUri: form.redirectUri.trim() } : {}),
    });
  };
  const err = save.error;
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="sso-heading">
      <h2 id="sso-heading">OpenID Connect provider</h2>
      <TextField label="Issuer" field="issuer" error={err} value={form.issuer} onChange={set('issuer')} required type="url"
        hint="For Keycloak: https://<host>/realms/<realm>. Saving checks that it answers discovery." />
      <TextField label="Client ID" field="clientId" error={err} value={form.clientId} onChange={set('clientId')} required />
      <TextField label="Client secret" field="clientSecret" error={err} value={form.clientSecret} onChange={set('clientSecret')} required type="password" autoComplete="off"
        hint={setting ? 'Never shown again: enter it to save any change.' : 'Stored encrypted; never shown again.'} />
      <TextField label="Redirect URI" field="redirectUri" error={err} value={form.redirectUri} onChange={set('redirectUri')} type="url"
        hint="Register it as the client's redirect URI at the provider. Left empty, the Controller's --public-url is used." />
      <TextField label="Display name" field="displayName" error={err} value={form.displayName} onChange={set('displayName')} required maxLength={100}
        hint="The sign-in button says “Sign in with” this." />
      <TextField label="Administrator groups" field="adminGroups" error={err} value={form.adminGroups} onChange={set('adminGroups')}
        hint="Comma-separated. Members are global administrators; checked at every sign-in." />
      <TeamMappingsField mappings={mappings} roles={roles} onChange={setMappings} />
      <CheckboxField label="Allow password sign-in for everyone" checked={allowPasswordLogin} onChange={setAllowPasswordLogin}
        hint="Off: only global administrators may still sign in with a password (how to get in while the provider is down)." />
      <FormProblem error={err} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>{save.isPending ? 'Saving single sign-on…' : 'Save single sign-on'}</button>
        {save.isSuccess ? <span role="status" className="success">Saved.</span> : null}
        {setting ? (
          <ConfirmButton title="Turn single sign-on off?" confirmLabel="Turn off" action={api.sso.clear} onDone={() => refresh(undefined)}
            description="Users made by single sign-on stay, but cannot sign in until it is set up again; password sign-in opens to everyone.">
            Turn single sign-on off
          </ConfirmButton>
        ) : null}
      </div>
    </form>
  );
}
