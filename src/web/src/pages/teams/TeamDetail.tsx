import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllRoles, useAllUsers } from '../../api/reference-data';
import type { Membership, Role, TeamDetail as Team, User } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { SelectField, TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { CheckboxGroup, type Choice } from '../../components/Choices';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormDialog } from '../../components/FormDialog';
import { FormProblem } from '../../components/FormProblem';

interface TeamDetailProps {
  teamId: string;
  /** A global administrator: may change the team (a convenience: the API decides). */
  admin: boolean;
  onClose: () => void;
}

const roleChoices = (roles: Role[] | undefined): Choice<string>[] =>
  (roles ?? []).map((r) => ({ value: r.id, label: r.name, hint: r.description }));

/** One team: rename, delete, and its members with their roles. */
export function TeamDetail({ teamId, admin, onClose }: TeamDetailProps) {
  const client = useQueryClient();
  const team = useQuery({ queryKey: queryKeys.teams.detail(teamId), queryFn: () => api.teams.get(teamId) });
  const roles = useAllRoles();
  // Listing users is for global administrators; others see members by id.
  const users = useAllUsers(admin);
  const pager = useCursorPager();
  const members = useQuery({ queryKey: queryKeys.teams.members.list(teamId, pager.cursor), queryFn: () => api.teams.members(teamId, { cursor: pager.cursor }) });
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = team.data !== undefined;
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [loaded]);

  const usersById = useMemo(() => new Map((users.data ?? []).map((u) => [u.id, u])), [users.data]);
  const rolesById = useMemo(() => new Map((roles.data ?? []).map((r) => [r.id, r])), [roles.data]);
  const membersChanged = () => client.invalidateQueries({ queryKey: queryKeys.teams.members.all(teamId) });
  const who = (userId: string) => {
    const u = usersById.get(userId);
    return u ? `${u.displayName} (${u.username})` : userId;
  };

  if (!team.data) return <section className="card detail">{team.error ? <ProblemAlert error={team.error} /> : <Loading what="the team" />}</section>;
  const t = team.data;
  const columns: Column<Membership>[] = [
    { header: 'Member', essential: true, cell: (m) => who(m.userId) },
    { header: 'Roles', essential: true, cell: (m) => (m.roleIds.length ? m.roleIds.map((id) => rolesById.get(id)?.name ?? id).join(', ') : 'No roles') },
    {
      header: 'Actions', essential: true, cell: (m) => (admin ? (
        <div className="row-actions">
          <ChangeRoles teamId={teamId} membership={m} name={who(m.userId)} choices={roleChoices(roles.data)} onSaved={() => void membersChanged()} />
          <ConfirmButton
            title={`Remove ${who(m.userId)} from ${t.name}?`} confirmLabel="Remove" action={() => api.teams.removeMember(teamId, m.userId)} onDone={() => void membersChanged()}
            description="They lose every permission they had through this team at once."
          >Remove<span className="visually-hidden"> {who(m.userId)}</span></ConfirmButton>
        </div>
      ) : null),
    },
  ];

  return (
    <section className="card detail" aria-labelledby="team-detail-heading">
      <div className="detail-head">
        <h2 id="team-detail-heading" ref={heading} tabIndex={-1}>{t.name}</h2>
        <button type="button" onClick={onClose}>Close<span className="visually-hidden"> {t.name}</span></button>
      </div>
      <p className="hint">Created {formatTime(t.createdAt)}.</p>
      {admin ? (
        <div className="actions">
          <RenameTeam team={t} />
          <ConfirmButton
            title={`Delete the team ${t.name}?`} confirmLabel="Delete" action={() => api.teams.delete(teamId)}
            onDone={() => { onClose(); void client.invalidateQueries({ queryKey: queryKeys.teams.all }); }}
            description="Its memberships go with it. A team that still has servers cannot be deleted."
          >Delete team<span className="visually-hidden"> {t.name}</span></ConfirmButton>
        </div>
      ) : null}
      <h3>Members</h3>
      <ProblemAlert error={members.error ?? roles.error ?? users.error} />
      {members.data ? <DataTable caption={`Members of ${t.name}`} columns={columns} rows={members.data.items} rowKey={(m) => m.userId} empty="No members yet." /> : members.error ? null : <Loading what="members" />}
      <Pager pager={pager} nextCursor={members.data?.nextCursor} label="Members pages" />
      {admin ? <AddMember teamId={teamId} users={users.data} choices={roleChoices(roles.data)} onAdded={() => void membersChanged()} /> : null}
    </section>
  );
}

function RenameTeam({ team }: { team: Team }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const rename = useMutation({
    mutationFn: () => api.teams.rename(team.id, { name: name.trim() }),
    onSuccess: async (renamed) => {
      setOpen(false);
      client.setQueryData(queryKeys.teams.detail(team.id), renamed);
      await client.invalidateQueries({ queryKey: queryKeys.teams.all });
    },
  });
  return (
    <>
      <button type="button" onClick={() => { rename.reset(); setName(team.name); setOpen(true); }}>Rename<span className="visually-hidden"> {team.name}</span></button>
      <FormDialog open={open} title={`Rename ${team.name}`} submitLabel="Save name" onSubmit={() => rename.mutate()} onClose={() => setOpen(false)} pending={rename.isPending}>
        <TextField label="Name" field="name" error={rename.error} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" required />
        <FormProblem error={rename.error} fields={['name']} />
      </FormDialog>
    </>
  );
}

interface ChangeRolesProps {
  teamId: string;
  membership: Membership;
  name: string;
  choices: Choice<string>[];
  onSaved: () => void;
}

function ChangeRoles({ teamId, membership, name, choices, onSaved }: ChangeRolesProps) {
  const [open, setOpen] = useState(false);
  const [roleIds, setRoleIds] = useState<string[]>([]);
  const save = useMutation({
    mutationFn: () => api.teams.setMember(teamId, membership.userId, { roleIds }),
    onSuccess: () => {
      setOpen(false);
      onSaved();
    },
  });
  return (
    <>
      <button type="button" onClick={() => { save.reset(); setRoleIds(membership.roleIds); setOpen(true); }}>Change roles<span className="visually-hidden"> of {name}</span></button>
      <FormDialog open={open} title={`Roles of ${name}`} submitLabel="Save roles" onSubmit={() => save.mutate()} onClose={() => setOpen(false)} pending={save.isPending}>
        <CheckboxGroup legend="Roles" field="roleIds" error={save.error} choices={choices} selected={roleIds} onChange={setRoleIds} />
        <FormProblem error={save.error} fields={['roleIds']} />
      </FormDialog>
    </>
  );
}

function AddMember({ teamId, users, choices, onAdded }: { teamId: string; users: User[] | undefined; choices: Choice<string>[]; onAdded: () => void }) {
  const [userId, setUserId] = useState('');
  const [roleIds, setRoleIds] = useState<string[]>([]);
  const [noUser, setNoUser] = useState<string>();
  const add = useMutation({
    mutationFn: () => api.teams.setMember(teamId, userId, { roleIds }),
    onSuccess: () => {
      setUserId('');
      setRoleIds([]);
      onAdded();
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setNoUser(userId ? undefined : 'Choose a user.');
    if (userId) add.mutate();
  };
  return (
    <form className="admin-form sub-form" onSubmit={submit} noValidate aria-labelledby="add-member-heading">
      <h3 id="add-member-heading">Add a member</h3>
      <SelectField label="User" localError={noUser} value={userId} onChange={(e) => setUserId(e.target.value)} required>
        <option value="">Choose a user…</option>
        {(users ?? []).map((u) => <option key={u.id} value={u.id}>{u.displayName} ({u.username})</option>)}
      </SelectField>
      <CheckboxGroup legend="Roles" field="roleIds" error={add.error} choices={choices} selected={roleIds} onChange={setRoleIds} hint="A member already in the team gets exactly these roles." />
      <FormProblem error={add.error} fields={['roleIds']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={add.isPending}>{add.isPending ? 'Adding member…' : 'Add member'}</button>
      </div>
    </form>
  );
}
