import { CreateProxy, Network, NetworkRoutes, UpdateNetwork } from '../../schemas/network.js';
import { ServerDetail } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

export const networkRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/network', tag: 'network', status: 200,
    summary: 'The network: where players connect, its lobby and its proxy (any signed-in user).', response: Network,
    handler: async () => s.network.get(),
  }),
  route({
    method: 'PATCH', path: '/network', tag: 'network', status: 200,
    summary: 'Change the network (global administrators).',
    description: '`lobbyServerId` must name a member (a server with `inNetwork: true`; `conflict` otherwise); `null` clears it. '
      + 'A new `port` moves the proxy: a running proxy restarts on it; `conflict` when it is taken on the proxy\'s host, `phase_busy` while the proxy is busy. '
      + 'The proxy\'s routes follow at once. Removing a team from `teamIds` takes its members out of the network and rotates the forwarding secret '
      + '(as POST /network/forwarding-secret does: the proxy and the remaining members restart in turn).',
    body: UpdateNetwork, response: Network, errors: ['conflict', 'phase_busy'],
    audit: { action: 'network.update', targetKind: 'network' },
    handler: async ({ caller, body, audit }) => s.network.update(caller, body, audit),
  }),
  route({
    method: 'POST', path: '/network/proxy', tag: 'network', status: 201,
    summary: 'Create the network\'s one proxy (global administrators): a server of kind PROXY listening on the network\'s port.',
    description: 'Placed on `nodeId`, or on the best-fitting Node whose host has the network\'s port free, then installed, started and stopped like any server. '
      + 'A second proxy is refused (`conflict`); so is a `nodeId` whose host has the port taken. The proxy never joins the network. '
      + 'It belongs to `teamId`, or else to the team `network` (made when missing). The proxy is told the routes and the network\'s forwarding secret, '
      + 'which the API never shows.',
    body: CreateProxy, response: ServerDetail, errors: ['conflict', 'insufficient_capacity'],
    audit: { action: 'network.proxy.create', targetKind: 'server' },
    handler: async ({ caller, body, audit }) => s.network.createProxy(caller, body, audit),
  }),
  route({
    method: 'POST', path: '/network/forwarding-secret', tag: 'network', status: 204,
    summary: 'Rotate the network\'s forwarding secret (global administrators).',
    description: 'The old secret is given to no server again. The proxy, then each running member, restarts in turn to take the new one; '
      + 'each shows `RESTART_PENDING` until it did (a stopped server takes it at its next start). '
      + 'Removing a team from `teamIds` (PATCH /network) does the same, after that team\'s members leave the network.',
    audit: { action: 'network.forwarding_secret.rotate', targetKind: 'network' },
    handler: async ({ caller, audit }) => s.network.rotateSecret(caller, audit),
  }),
  route({
    method: 'GET', path: '/network/routes', tag: 'network', status: 200,
    summary: 'What the proxy is told: each member running as a member, at its Node\'s reachAddress and its game port, lobby first, then by name.',
    description: 'A member joins the routes when it starts as a member and leaves them when it is stopped, crashes, is deleted, or restarts after leaving. '
      + 'Global administrators see every route; others the routes of the servers they can read (`servers.read`).',
    response: NetworkRoutes,
    handler: async ({ caller }) => s.network.routes(caller),
  }),
];
