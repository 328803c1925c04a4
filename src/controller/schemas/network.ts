import Type from 'typebox';
import { DateTime, Uuid } from './common.js';
import { NetworkAddress, NetworkPort } from './setup.js';

export const Network = Type.Object({
  name: Type.String(),
  description: Type.String(),
  address: Type.String(),
  port: Type.Integer(),
  lobbyServerId: Type.Optional(Uuid),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const UpdateNetwork = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  address: Type.Optional(NetworkAddress),
  port: Type.Optional(NetworkPort),
}, { additionalProperties: false, minProperties: 1 });
