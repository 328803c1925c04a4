import Type, { type Static } from 'typebox';
import { DateTime } from './common.js';

export const ClusterController = Type.Object({
  id: Type.String({ description: 'The Controller\'s id, chosen at its start (Node detail names it in status.controllerId).' }),
  address: Type.String({ description: 'Where Agents reach its link (HOST:PORT): --advertise-address, else its own link address.' }),
  httpAddress: Type.Optional(Type.String({ description: 'Where its HTTP API listens (HOST:PORT).' })),
  startedAt: DateTime,
  lastSeenAt: DateTime,
  nodes: Type.Integer({ minimum: 0, description: 'How many Nodes it drives now.' }),
});

export const Cluster = Type.Object({
  controllers: Type.Array(ClusterController, { description: 'Every live Controller on the store, by id. On the embedded store: this one.' }),
});

export type ClusterController = Static<typeof ClusterController>;
