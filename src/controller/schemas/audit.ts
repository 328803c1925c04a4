import Type from 'typebox';
import { DateTime, Uuid, pageQueryFields } from './common.js';

export const AuditEvent = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  occurredAt: DateTime,
  actorKind: Type.Union([Type.Literal('USER'), Type.Literal('API_TOKEN'), Type.Literal('AGENT'), Type.Literal('SYSTEM')]),
  actorUserId: Type.Optional(Uuid),
  action: Type.String({ description: 'Dotted, area first: `user.create`, `server.start`.' }),
  targetKind: Type.String(),
  targetId: Type.String(),
  outcome: Type.Union([Type.Literal('SUCCESS'), Type.Literal('DENIED'), Type.Literal('FAILED')]),
  details: Type.Record(Type.String(), Type.Unknown()),
});

export const AuditQuery = Type.Object({
  actorUserId: Type.Optional(Uuid),
  targetKind: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  outcome: Type.Optional(Type.Union([Type.Literal('SUCCESS'), Type.Literal('DENIED'), Type.Literal('FAILED')])),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive: only events before this time.' })),
  ...pageQueryFields,
}, { additionalProperties: false });
