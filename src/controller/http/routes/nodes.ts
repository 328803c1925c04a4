import { AgentLink } from '../../schemas/agent-link.js';
import { IdParams } from '../../schemas/common.js';
import { CreateNode, EnrollmentIssued, Node, UpdateNode } from '../../schemas/nodes.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const NodeParams = IdParams('nodeId');
const node = recordRoutes({ tag: 'nodes', kind: 'node', path: '/nodes', id: 'nodeId' });
const manage = 'Needs the global permission nodes.manage (or a global administrator).';

/** enable, disable and revoke: one admin-state change each, refused on a REVOKED Node. */
const adminRoute = (s: Services, verb: 'enable' | 'disable' | 'revoke', summary: string) =>
  route({
    method: 'POST', path: `/nodes/{nodeId}/${verb}`, tag: 'nodes', status: 200,
    summary, description: manage, params: NodeParams, response: Node, errors: ['invalid_transition'],
    audit: { action: `node.${verb}`, targetKind: 'node' },
    handler: async ({ caller, params, audit }) => s.nodes[verb](caller, params.nodeId, audit),
  });

export const nodeRoutes = (s: Services, agentLink: AgentLink) => [
  node.create(() => s.nodes, {
    summary: 'Create a Node; answers a one-time enrollment token (valid one hour) for `cairn-agent --enrollment-token`.',
    description: `${manage} The Node is AWAITING_ENROLLMENT until its Agent enrolls and connects.`,
    body: CreateNode, response: EnrollmentIssued, errors: ['conflict'],
  }),
  node.list(() => s.nodes, {
    summary: 'Nodes in creation order.',
    description: 'Holders of nodes.manage see every Node; others see the Nodes their teams\' servers run on, where they hold nodes.read.',
    item: Node,
  }),
  node.get(() => s.nodes, { summary: 'One Node with its live status, conditions, reservations and free capacity.', response: Node }),
  node.update(() => s.nodes, {
    summary: 'Change where other Nodes reach this Node; empty means the observed address. The proxy\'s routes follow at once.',
    description: manage, body: UpdateNode, response: Node,
  }),
  adminRoute(s, 'enable', 'Allow new placements again (acceptsPlacements also needs HEALTHY). A REVOKED Node answers invalid_transition.'),
  adminRoute(s, 'disable', 'Stop new placements; servers already on the Node keep running.'),
  adminRoute(s, 'revoke', 'Revoke the Node for good: its credential stops working and its Agent\'s stream is closed at once.'),
  route({
    method: 'POST', path: '/nodes/{nodeId}/enrollment-token', tag: 'nodes', status: 201,
    summary: 'Issue a new one-time enrollment token (valid one hour); an earlier unused one stops working.',
    description: `${manage} Enrolling with it replaces the Node's credential.`,
    params: NodeParams, response: EnrollmentIssued, errors: ['invalid_transition'],
    audit: { action: 'node.enrollment_token_issue', targetKind: 'node' },
    handler: async ({ caller, params, audit }) => s.nodes.issueEnrollmentToken(caller, params.nodeId, audit),
  }),
  route({
    method: 'GET', path: '/agent-link', tag: 'nodes', status: 200,
    summary: 'Where Agents dial the Controller: the HOST:PORT for `cairn-agent --controller` and whether the link runs TLS.',
    description: manage, response: AgentLink,
    handler: async ({ caller }) => s.nodes.agentLink(caller, agentLink),
  }),
  node.delete(() => s.nodes, { summary: 'Delete a Node; refused (conflict) while servers are placed on it. Its Agent is disconnected.', description: manage, errors: ['conflict'] }),
];
