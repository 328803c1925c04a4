import type { CreateUser } from '../../api/types';
import { TextField } from '../../components/Field';
import { CheckboxField, CheckboxGroup } from '../../components/Choices';
import { globalPermissionChoices } from '../../components/permissions';

/** The form's value: the create request's fields, all present (editing sends the ones changed). */
export type UserFields = Required<CreateUser>;

export const emptyUser: UserFields = { username: '', email: '', displayName: '', password: '', globalAdmin: false, globalPermissions: [] };

/** The request fields these controls show problems for. */
export const userFields = ['username', 'email', 'displayName', 'password', 'globalAdmin', 'globalPermissions'];

interface UserFormFieldsProps {
  value: UserFields;
  onChange: (value: UserFields) => void;
  error: unknown;
  /** Creating: username and initial password too. */
  creating: boolean;
}

/** The controls of a user, shared by the create form and the edit dialog. */
export function UserFormFields({ value, onChange, error, creating }: UserFormFieldsProps) {
  const set = <K extends keyof UserFields>(key: K, v: UserFields[K]) => onChange({ ...value, [key]: v });
  return (
    <>
      {creating ? <TextField label="Username" field="username" error={error} value={value.username} onChange={(e) => set('username', e.target.value)} autoComplete="off" spellCheck={false} hint="Letters, digits, _ . and -, starting with a letter or digit." required /> : null}
      <TextField label="Email" field="email" type="email" error={error} value={value.email} onChange={(e) => set('email', e.target.value)} autoComplete="off" required />
      <TextField label="Display name" field="displayName" error={error} value={value.displayName} onChange={(e) => set('displayName', e.target.value)} autoComplete="off" required />
      {creating ? <TextField label="Initial password" field="password" type="password" error={error} value={value.password} onChange={(e) => set('password', e.target.value)} autoComplete="new-password" hint="8 to 256 characters. The user must change it at the first sign-in." required /> : null}
      <CheckboxField label="Global administrator" field="globalAdmin" error={error} checked={value.globalAdmin} onChange={(on) => set('globalAdmin', on)} hint="Manages users, teams, roles, Nodes and the audit log, and may do everything in every team." />
      <CheckboxGroup legend="Global permissions" field="globalPermissions" error={error} choices={globalPermissionChoices} selected={value.globalPermissions} onChange={(v) => set('globalPermissions', v)} />
    </>
  );
}
