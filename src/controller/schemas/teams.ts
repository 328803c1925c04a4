import Type from 'typebox';
import { DateTime, Uuid, PrintableName } from './common.js';

export const TeamName = PrintableName(100);
const internal = Type.Optional(Type.Literal(true, {
  description: 'Present on a team Cairn made for itself, not for people: the team `network` the proxy joins when POST /network/proxy names none. '
    + 'Clients leave it out of the teams they offer for new servers. Read-only.',
}));
export const Team = Type.Object({ id: Uuid, name: Type.String(), internal });
export const TeamDetail = Type.Object({ id: Uuid, name: Type.String(), internal, createdAt: DateTime });
export const CreateTeam = Type.Object({ name: TeamName }, { additionalProperties: false });
export const UpdateTeam = Type.Object({ name: TeamName }, { additionalProperties: false });

export const SetMembership = Type.Object({
  roleIds: Type.Array(Uuid, { uniqueItems: true, maxItems: 50 }),
}, { additionalProperties: false });
export const Membership = Type.Object({ userId: Uuid, teamId: Uuid, roleIds: Type.Array(Uuid) });
export const MemberParams = Type.Object({ teamId: Uuid, userId: Uuid }, { additionalProperties: false });
