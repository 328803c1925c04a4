import { useAllTeams } from '../../api/reference-data';
import type { OidcTeamMapping, Role } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { CheckboxGroup } from '../../components/Choices';
import { peopleTeams } from '../teams/people-teams';

interface TeamMappingsFieldProps {
  mappings: OidcTeamMapping[];
  roles: Role[];
  onChange: (mappings: OidcTeamMapping[]) => void;
}

/** One row per provider group: the team its members join and the roles they hold there. */
export function TeamMappingsField({ mappings, roles, onChange }: TeamMappingsFieldProps) {
  const teams = peopleTeams(useAllTeams(true).data ?? []);
  const change = (i: number, part: Partial<OidcTeamMapping>) => onChange(mappings.map((m, j) => (j === i ? { ...m, ...part } : m)));
  return (
    <fieldset className="team-mappings">
      <legend>Team mappings</legend>
      <p className="hint">Set at every sign-in: a member of the group joins the team with these roles, and leaves it once no mapped group of that team is theirs.</p>
      {mappings.map((m, i) => (
        <div key={i} className="card" role="group" aria-label={`Mapping ${i + 1}`}>
          <TextField label="Group" value={m.group} onChange={(e) => change(i, { group: e.target.value })} required maxLength={256} />
          <SelectField label="Team" value={m.teamId} onChange={(e) => change(i, { teamId: e.target.value })} required>
            <option value="">Choose a team</option>
            {teams.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </SelectField>
          <CheckboxGroup legend="Roles" choices={roles.map((r) => ({ value: r.id, label: r.name }))} selected={m.roleIds} onChange={(roleIds) => change(i, { roleIds })} />
          <button type="button" onClick={() => onChange(mappings.filter((_, j) => j !== i))}>Remove mapping {i + 1}</button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...mappings, { group: '', teamId: '', roleIds: [] }])}>Add a team mapping</button>
    </fieldset>
  );
}
