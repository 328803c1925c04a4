import type { CreateRole } from '../../api/types';
import { TextField } from '../../components/Field';
import { CheckboxGroup } from '../../components/Choices';
import { permissionChoices } from '../../components/permissions';

/** The form's value: the request's fields, the optional description empty until typed. */
export type RoleFields = Required<CreateRole>;

export const emptyRole: RoleFields = { name: '', description: '', permissions: [] };
export const roleFields = ['name', 'description', 'permissions'];

/** The controls of a custom role: its name, description and one checkbox per permission value. */
export function RoleFormFields({ value, onChange, error }: { value: RoleFields; onChange: (value: RoleFields) => void; error: unknown }) {
  return (
    <>
      <TextField label="Name" field="name" error={error} value={value.name} onChange={(e) => onChange({ ...value, name: e.target.value })} autoComplete="off" hint="1 to 100 characters." required />
      <TextField label="Description" field="description" error={error} value={value.description} onChange={(e) => onChange({ ...value, description: e.target.value })} autoComplete="off" hint="Optional, at most 500 characters." />
      <CheckboxGroup
        legend="Permissions" field="permissions" error={error} choices={permissionChoices} selected={value.permissions}
        onChange={(permissions) => onChange({ ...value, permissions })} hint="A member holds, in a team, every permission of each of their roles there."
      />
    </>
  );
}
