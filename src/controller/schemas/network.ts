import Type from 'typebox';
import { DateTime, PrintableName, Uuid } from './common.js';
import { ResourcesSchema, ServerName, SoftwareSchema } from './servers.js';
import { NetworkAddress, NetworkPort } from './setup.js';

export const Network = Type.Object({
  name: Type.String(),
  description: Type.String(),
  address: Type.String({ description: 'Where players connect: host name or IP address, without a port.' }),
  port: Type.Integer({ description: 'The port players connect to; the proxy listens on it on its Node.' }),
  lobbyServerId: Type.Optional(Uuid),
  proxyServerId: Type.Optional(Type.String({ format: 'uuid', description: 'The network\'s proxy (kind PROXY), once created with POST /network/proxy.' })),
  teamIds: Type.Array(Uuid, { description: 'The teams admitted to the network: only their servers may join it, unless a global administrator sets `inNetwork`. None at first.' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const UpdateNetwork = Type.Object({
  name: Type.Optional(PrintableName(64)),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  address: Type.Optional(NetworkAddress),
  port: Type.Optional(NetworkPort),
  lobbyServerId: Type.Optional(Type.Union([Uuid, Type.Null()], {
    description: 'A member (a server with inNetwork true) that players are sent to first; null clears the lobby. A server that leaves the network or is deleted stops being the lobby.',
  })),
  teamIds: Type.Optional(Type.Array(Uuid, {
    maxItems: 1000,
    description: 'The teams admitted to the network, replacing the list: members share the forwarding secret, so the network is one trust domain. '
      + 'Team administrators of an admitted team may set `inNetwork` on its servers; `[]` admits none. A deleted team drops out.',
  })),
}, { additionalProperties: false, minProperties: 1 });

export const CreateProxy = Type.Object({
  software: SoftwareSchema,
  resources: ResourcesSchema,
  nodeId: Type.Optional(Uuid),
  name: Type.Optional(ServerName),
  teamId: Type.Optional(Type.String({ format: 'uuid', description: 'The team whose members operate the proxy; defaults to the team `network`, made when missing.' })),
}, { additionalProperties: false });

export const NetworkRoute = Type.Object({
  serverId: Uuid,
  name: Type.String(),
  address: Type.String({ description: 'The member\'s Node\'s reachAddress.' }),
  port: Type.Integer({ minimum: 1, maximum: 65535, description: 'The member\'s game port.' }),
});

export const NetworkRoutes = Type.Object({
  items: Type.Array(NetworkRoute, { description: 'Members running as members, in the order the proxy tries them: the lobby first, then by name.' }),
});
