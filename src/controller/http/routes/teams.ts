import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateTeam, MemberParams, Membership, SetMembership, Team, TeamDetail, UpdateTeam } from '../../schemas/teams.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

const TeamParams = IdParams('teamId');

export const teamRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/teams', tag: 'teams', status: 201,
    summary: 'Create a team (global administrators).', body: CreateTeam, response: Team, errors: ['conflict'],
    audit: { action: 'team.create', targetKind: 'team' },
    handler: async ({ caller, body, audit }) => s.teams.create(caller, body, audit),
  }),
  route({
    method: 'GET', path: '/teams', tag: 'teams', status: 200,
    summary: 'Teams you belong to (all teams for global administrators), in creation order.',
    query: PageQuery, response: Paged(Team),
    handler: async ({ caller, query }) => s.teams.list(caller, query),
  }),
  route({
    method: 'GET', path: '/teams/{teamId}', tag: 'teams', status: 200,
    summary: 'One team (members and global administrators).', params: TeamParams, response: TeamDetail,
    handler: async ({ caller, params }) => s.teams.get(caller, params.teamId),
  }),
  route({
    method: 'PATCH', path: '/teams/{teamId}', tag: 'teams', status: 200,
    summary: 'Rename a team (global administrators).', params: TeamParams, body: UpdateTeam, response: TeamDetail, errors: ['conflict'],
    audit: { action: 'team.update', targetKind: 'team' },
    handler: async ({ caller, params, body, audit }) => s.teams.rename(caller, params.teamId, body, audit),
  }),
  route({
    method: 'DELETE', path: '/teams/{teamId}', tag: 'teams', status: 204,
    summary: 'Delete a team and its memberships (global administrators); refused while it has servers.',
    params: TeamParams, errors: ['conflict'],
    audit: { action: 'team.delete', targetKind: 'team' },
    handler: async ({ caller, params, audit }) => s.teams.delete(caller, params.teamId, audit),
  }),
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
