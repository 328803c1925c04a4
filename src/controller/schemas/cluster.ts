import Type, { type Static } from 'typebox';
import { DateTime } from './common.js';

export const ClusterController = Type.Object({
  id: Type.String({ description: 'The Controller\'s id, chosen at its start (Node detail names it in status.controllerId).' }),
  address: Type.String({ description: 'Where Agents reach its link (HOST:PORT): --advertise-address, else its own link address.' }),
  httpAddress: Type.Optional(Type.String({ description: 'Where its HTTP API listens (HOST:PORT).' })),
  startedAt: DateTime,
  lastSeenAt: DateTime,
  nodes: Type.Integer({ minimum: 0, description: 'How many Nodes it drives now.' }),
  jobs: Type.Optional(Type.Array(Type.String(), { description: 'The fleet-wide jobs it runs now (task-schedules, backup-scheduler, webhook-deliveries, audit-prune, catalog-sync, software-sync): each runs on one Controller at a time.' })),
});

export const Cluster = Type.Object({
  controllers: Type.Array(ClusterController, { description: 'Every live Controller on the store, by id. On the embedded store: this one.' }),
});

export type ClusterController = Static<typeof ClusterController>;
