import type { Permission, Team } from '../../api/types';
import { CheckboxField, CheckboxGroup } from '../../components/Choices';
import { permissionChoices } from '../../components/permissions';
import { peopleTeams } from '../teams/people-teams';

/** A token's scope as the form holds it: off means unscoped (everything its owner may do). */
export interface ScopeFields {
  scoped: boolean;
  permissions: Permission[];
  teamIds: string[];
}

export const unscopedFields: ScopeFields = { scoped: false, permissions: [], teamIds: [] };

/** The request's scope fields; none when unscoped, and no team list when no team is ticked (all of the owner's). */
export function scopeBody(value: ScopeFields): { permissions?: Permission[]; teamIds?: string[] } {
  if (!value.scoped) return {};
  return { permissions: value.permissions, ...(value.teamIds.length > 0 ? { teamIds: value.teamIds } : {}) };
}

/** Limits a new token to some team permissions in some teams; global administration never passes to a scoped token. */
export function TokenScopeFields({ value, onChange, teams, error }: { value: ScopeFields; onChange: (value: ScopeFields) => void; teams: Team[]; error: unknown }) {
  return (
    <>
      <CheckboxField
        label="Limit what this token can do" checked={value.scoped} onChange={(scoped) => onChange({ ...value, scoped })}
        hint="A limited token can use only the permissions and teams chosen below, never more than you can, and never global administration (users, Nodes, the network)."
      />
      {value.scoped ? (
        <>
          <CheckboxGroup
            legend="Token permissions" field="permissions" error={error} choices={permissionChoices} selected={value.permissions}
            onChange={(permissions) => onChange({ ...value, permissions })} hint="Only these, in the teams below."
          />
          <CheckboxGroup
            legend="Token teams" field="teamIds" error={error} choices={peopleTeams(teams).map((t) => ({ value: t.id, label: t.name }))} selected={value.teamIds}
            onChange={(teamIds) => onChange({ ...value, teamIds })} hint="None ticked: every team of yours."
          />
        </>
      ) : null}
    </>
  );
}
