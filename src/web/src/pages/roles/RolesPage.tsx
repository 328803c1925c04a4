import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Permission, Role, UpdateRole } from '../../api/types';
import { useMe } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CreateForm } from '../../components/CreateForm';
import { FormDialog } from '../../components/FormDialog';
import { FormProblem } from '../../components/FormProblem';
import '../admin.css';
import { emptyRole, roleFields, RoleFormFields, type RoleFields } from './RoleForm';

export function RolesPage() {
  const client = useQueryClient();
  const me = useMe();
  const admin = me.data?.globalAdmin === true;
  const pager = useCursorPager();
  const roles = useQuery({ queryKey: queryKeys.roles.list(pager.cursor), queryFn: () => api.roles.list({ cursor: pager.cursor }) });
  const [editing, setEditing] = useState<Role>();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.roles.all });

  const columns: Column<Role>[] = [
    { header: 'Name', essential: true, cell: (r) => <><strong>{r.name}</strong>{r.builtin ? <> <span className="marker">Built-in</span></> : null}</> },
    { header: 'Description', cell: (r) => r.description || '—' },
    { header: 'Permissions', essential: true, cell: (r) => <ul className="tag-list">{r.permissions.map((p) => <li key={p}><code>{p}</code></li>)}</ul> },
    {
      header: 'Actions', essential: true, cell: (r) => (r.builtin ? <span className="hint">Read-only</span> : admin ? (
        <div className="row-actions">
          <button type="button" onClick={() => setEditing(r)}>Edit<span className="visually-hidden"> {r.name}</span></button>
          <ConfirmButton
            title={`Delete the role ${r.name}?`} confirmLabel="Delete" action={() => api.roles.delete(r.id)} onDone={() => void refresh()}
            description="A role that a team membership still uses cannot be deleted: take it from those members first."
          >Delete<span className="visually-hidden"> {r.name}</span></ConfirmButton>
        </div>
      ) : null),
    },
  ];

  return (
    <section>
      <h1>Roles</h1>
      <p className="notice">Built-in roles (<code>viewer</code>, <code>operator</code>, <code>admin</code>) can be assigned to team members but not changed. Custom roles are yours to create, change and delete.</p>
      <ProblemAlert error={roles.error} />
      {roles.data ? <DataTable caption="Roles" columns={columns} rows={roles.data.items} rowKey={(r) => r.id} empty="No roles." /> : roles.error ? null : <Loading what="roles" />}
      <Pager pager={pager} nextCursor={roles.data?.nextCursor} label="Roles pages" />
      {editing ? <EditRole key={editing.id} role={editing} onClose={() => setEditing(undefined)} onSaved={() => void refresh()} /> : null}
      {admin ? <NewRoleForm onCreated={() => void refresh()} /> : null}
    </section>
  );
}

function NewRoleForm({ onCreated }: { onCreated: () => void }) {
  return (
    <CreateForm
      noun="role" empty={emptyRole} create={api.roles.create} onCreated={onCreated} fields={roleFields}
      body={(value) => ({ name: value.name.trim(), description: value.description, permissions: value.permissions })}
      done={(role) => <>Role {role.name} created.</>}
    >
      {(value, onChange, error) => <RoleFormFields value={value} onChange={onChange} error={error} />}
    </CreateForm>
  );
}

function EditRole({ role, onClose, onSaved }: { role: Role; onClose: () => void; onSaved: () => void }) {
  const [value, setValue] = useState<RoleFields>({ name: role.name, description: role.description, permissions: role.permissions as Permission[] });
  const save = useMutation({
    mutationFn: (change: UpdateRole) => api.roles.update(role.id, change),
    onSuccess: () => {
      onSaved();
      onClose();
    },
  });
  return (
    <FormDialog open title={`Edit the role ${role.name}`} submitLabel="Save role" onSubmit={() => save.mutate({ name: value.name.trim(), description: value.description, permissions: value.permissions })} onClose={onClose} pending={save.isPending}>
      <RoleFormFields value={value} onChange={setValue} error={save.error} />
      <FormProblem error={save.error} fields={roleFields} />
    </FormDialog>
  );
}
