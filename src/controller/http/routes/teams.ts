import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateTeam, MemberParams, Membership, SetMembership, Team, TeamDetail, UpdateTeam } from '../../schemas/teams.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const TeamParams = IdParams('teamId');
const team = recordRoutes({ tag: 'teams', kind: 'team', path: '/teams', id: 'teamId' });

export const teamRoutes = (s: Services) => [
  team.create(() => s.teams, { summary: 'Create a team (global administrators).', body: CreateTeam, response: Team, errors: ['conflict'] }),
  team.list(() => s.teams, { summary: 'Teams you belong to (all teams for global administrators), in creation order.', item: Team }),
  team.get(() => s.teams, { summary: 'One team (members and global administrators).', response: TeamDetail }),
  route({
    method: 'PATCH', path: '/teams/{teamId}', tag: 'teams', status: 200,
    summary: 'Rename a team (global administrators).', params: TeamParams, body: UpdateTeam, response: TeamDetail, errors: ['conflict'],
    audit: { action: 'team.update', targetKind: 'team' },
    handler: async ({ caller, params, body, audit }) => s.teams.rename(caller, params.teamId, body, audit),
  }),
  team.delete(() => s.teams, { summary: 'Delete a team and its memberships (global administrators); refused while it has servers.', errors: ['conflict'] }),
  route({
    method: 'PUT', path: '/teams/{teamId}/members/{userId}', tag: 'teams', status: 200,
    summary: 'Make a user a member of the team with exactly these roles (global administrators).',
    description: 'A member\'s permissions in the team are the union of its roles\' permissions.',
    params: MemberParams, body: SetMembership, response: Membership,
    audit: { action: 'team.member_set', targetKind: 'membership' },
    handler: async ({ caller, params, body, audit }) => s.teams.setMembership(caller, params.teamId, params.userId, body, audit),
  }),
  route({
    method: 'GET', path: '/teams/{teamId}/members', tag: 'teams', status: 200,
    summary: 'The team\'s members and their roles.', params: TeamParams, query: PageQuery, response: Paged(Membership),
    handler: async ({ caller, params, query }) => s.teams.listMembers(caller, params.teamId, query),
  }),
  route({
    method: 'DELETE', path: '/teams/{teamId}/members/{userId}', tag: 'teams', status: 204,
    summary: 'Remove a user from the team (global administrators).', params: MemberParams,
    audit: { action: 'team.member_remove', targetKind: 'membership' },
    handler: async ({ caller, params, audit }) => s.teams.removeMember(caller, params.teamId, params.userId, audit),
  }),
];
