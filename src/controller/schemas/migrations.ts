import Type from 'typebox';
import { Uuid } from './common.js';
import { Node } from './nodes.js';

export const MigrateServer = Type.Object({
  nodeId: Type.String({ format: 'uuid', description: 'The Node to move the server to: it must accept placements and have room for the server\'s reservation.' }),
}, { additionalProperties: false });

export const DrainStarted = Type.Object({
  node: Node,
  serverIds: Type.Array(Uuid, { description: 'The servers being moved off the Node, one at a time, in this order.' }),
});
