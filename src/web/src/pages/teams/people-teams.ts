import type { Team } from '../../api/types';

/**
 * The teams people work in: without those Cairn made for itself (`internal`, the network's own
 * team, where the proxy runs). Lists and pickers show these only, so no one adds members, maps a
 * group or limits a token to a team that is not for people; a link to the team still opens it.
 */
export const peopleTeams = (teams: Team[]): Team[] => teams.filter((t) => !t.internal);
