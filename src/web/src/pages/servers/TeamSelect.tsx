import { Link } from 'react-router';
import type { Team } from '../../api/types';
import { SelectField } from '../../components/Field';
import { peopleTeams } from '../teams/people-teams';

interface TeamSelectProps {
  /** Every team the caller sees; teams Cairn made for itself (`internal`) are left out. */
  teams: Team[] | undefined;
  value: string;
  onChange: (teamId: string) => void;
  /** The last error of the form's mutation. */
  error: unknown;
  /** "Choose a team." when the form was sent without one. */
  localError?: string;
  /** Global administrators create teams: they get a link to the Teams page. */
  mayCreateTeams: boolean;
}

/** The teams a new server can belong to: only teams of people, the network's own team is not one. */
export const teamsForServers = (teams: Team[] | undefined) => (teams ? peopleTeams(teams) : undefined);

/** The Team control of the New server form, saying how to get a team when there is none. */
export function TeamSelect({ teams, value, onChange, error, localError, mayCreateTeams }: TeamSelectProps) {
  const none = teams?.length === 0;
  const hint = !none ? undefined : mayCreateTeams
    ? <>No team yet: <Link to="/teams">create one on the Teams page</Link>.</>
    : 'No team yet: ask a global administrator to create one and add you to it.';
  return (
    <SelectField label="Team" field="teamId" error={error} localError={localError} value={value} onChange={(e) => onChange(e.target.value)} hint={hint} required>
      {none ? <option value="">No team</option> : null}
      {teams?.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
    </SelectField>
  );
}
