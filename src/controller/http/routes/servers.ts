
import { Paged } from '../../schemas/common.js';
import { ConditionParams, CreateServer, DryRunQuery, ServerDetail, ServerListItem, ServerListQuery, ServerParams, UpdateServer } from '../../schemas/servers.js';
import { ServerUsage, UsageQuery } from '../../schemas/usage.js';
import type { Services } from '../../services/index.js';
import { maxWatchStreamsPerUser, watchRetryAfterSeconds, watchRingLimits } from '../../services/servers/watch-stream.js';
import { endEventStream, maxLagBytes, openEventStream } from '../sse.js';
import { pageJson } from '../page-json.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const server = recordRoutes({ tag: 'servers', kind: 'server', path: '/servers', id: 'serverId' });

const powerRoute = (s: Services, verb: 'start' | 'stop' | 'restart') =>
  route({
    method: 'POST', path: `/servers/{serverId}/${verb}`, tag: 'servers', status: 202,
    summary: `${verb[0].toUpperCase()}${verb.slice(1)} the server: changes its desired state only; the Agent applies it later.`,
    description: verb === 'start'
      ? 'Increases `generation`, except on a server already desired RUNNING (nothing changes; still 202 and audited). Refused with `phase_busy` unless the server is READY.'
      : 'Increases `generation`. Refused with `phase_busy` unless the server is READY.',
    params: ServerParams, response: ServerDetail, errors: ['phase_busy'],
    audit: { action: `server.${verb}`, targetKind: 'server' },
    handler: async ({ caller, params, audit }) => s.servers.power(caller, params.serverId, verb.toUpperCase() as 'START' | 'STOP' | 'RESTART', audit),
  });

const watchDescription = [
  'Opens with a snapshot: one `server` event (the list-item shape, as in GET /servers) per server you may read (`servers.read`), in creation order,',
  'then a `synced` event `{"snapshot": true, "events": n}`. After it, one `server` event whenever a readable server\'s desired or observed state',
  'changes (its whole list item at that moment), and `server-deleted` `{"id"}` when one is gone. A keep-alive comment is sent every 15 seconds.',
  '',
  'Every event has an SSE `id`: `<epoch>-<seq>`, where `epoch` names this Controller process and `seq` grows with every change;',
  'snapshot items are `<epoch>-<seq>.<n>`, between change `seq` and the `synced` that completes them, so ids read as numbers always increase.',
  'A client that reconnects with the `Last-Event-ID` header (EventSource does this by itself) gets exactly the changes it missed that it may read,',
  'then `synced` `{"snapshot": false, "events": n}`. The Controller keeps the last ' + watchRingLimits.maxEntries.toLocaleString('en') + ' changes of the last ' + watchRingLimits.maxAgeMs / 60_000 + ' minutes;',
  'an id older than that, from another Controller process (a restart), malformed, or a snapshot item\'s gets a fresh snapshot instead:',
  'after `synced` with `snapshot: true`, forget servers it did not name. A change made while the snapshot is read is in the snapshot, not sent twice.',
  '',
  'A client that falls more than 4 MiB behind (beyond what the opening left unread) is disconnected; it reconnects with its last id and resumes.',
  '',
  'The caller\'s access is re-checked at every change of it (sign-out, password reset, API token deleted, user deleted, membership or role',
  'changed) and every minute (expiry). A caller whose session or token ended, or whose user is gone, gets a last `end` event',
  '`{"reason": "access_revoked"}` and the stream closes (reconnecting needs a valid credential). One that keeps its credential but may no longer',
  'read some servers gets `server-deleted` for each (they are gone from its view) and nothing more of them; resuming from before that change',
  'gets a fresh snapshot. When the Controller stops, the stream ends with `end` `{"reason": "shutdown"}`.',
  '',
  `At most ${maxWatchStreamsPerUser} streams per user at once (all its sessions and API tokens together); more get 429 \`too_many_attempts\``,
  `with \`Retry-After: ${watchRetryAfterSeconds}\`. A closed stream frees its slot at once.`,
].join('\n');

export const serverRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/servers', tag: 'servers', status: 201,
    summary: 'Create a server: placed on `nodeId` or on the best-fitting Node that accepts placements.',
    description: 'A new server is `desiredState: STOPPED`, `phase: PROVISIONING` until its Node has installed the software, then `READY`.',
    query: DryRunQuery, dryRun: true,
    body: CreateServer, response: ServerDetail, errors: ['insufficient_capacity', 'not_network_capable', 'conflict'],
    audit: { action: 'server.create', targetKind: 'server' },
    handler: async ({ caller, body, query, audit }) => s.servers.create(caller, body, audit, { dryRun: query.dryRun }),
  }),
  route({
    method: 'GET', path: '/servers', tag: 'servers', status: 200,
    summary: 'Servers you can read, in creation order; filters: teamId, nodeId, convergence, kind, inNetwork.',
    query: ServerListQuery, response: Paged(ServerListItem), serialize: pageJson,
    handler: async ({ caller, query }) => s.servers.list(caller, query),
  }),
  route({
    method: 'GET', path: '/servers/watch', tag: 'servers', status: 200, stream: 'text/event-stream',
    summary: 'Server-Sent Events: the current state of every server you can read, then each change as it happens; resumable with `Last-Event-ID`.',
    description: watchDescription, errors: ['too_many_attempts'],
    handler: async ({ caller, ctx }) => {
      const watch = await s.serverWatch.open(caller, ctx.get('last-event-id') || undefined);
      try {
        const stream = openEventStream(ctx);
        void stream.closed.then(() => watch.close());
        // The opening (a snapshot may be large) goes out in one burst: lag is counted from what it left buffered.
        let allowance: number | undefined;
        watch.start({
          send: ({ event, data, id }) => {
            stream.send(event, data, id);
            if (event === 'synced') allowance = stream.bufferedBytes;
            // A client too far behind is let go: it reconnects with its last id and resumes from the ring.
            else if (allowance !== undefined && stream.bufferedBytes > allowance + maxLagBytes) stream.close();
          },
          end: (event) => endEventStream(stream, event),
          close: () => stream.close(),
        });
      } catch (e) {
        watch.close();
        throw e;
      }
    },
  }),
  server.get(() => ({ get: (caller, id) => s.sftp.serverDetail(caller, id) }), {
    summary: 'One server: desired spec, observed status (with its last crash: exit code or signal and last console lines), conditions.', response: ServerDetail,
  }),
  route({
    method: 'GET', path: '/servers/{serverId}/usage', tag: 'servers', status: 200,
    summary: 'The server\'s CPU, memory and players over time, from its Agent: a sample per 10 s (`window` 10m, 1h) or per minute (6h, 24h).',
    description: 'The Agent keeps each server\'s samples in memory while it runs it (the Controller keeps none), so the history starts empty after an Agent restart and after a migration. '
      + 'A per-minute sample is the mean CPU and the highest memory and players of its six 10-second samples.',
    params: ServerParams, query: UsageQuery, response: ServerUsage, errors: ['node_unavailable'],
    handler: async ({ caller, params, query }) => s.usage.of(caller, params.serverId, query.window ?? '1h'),
  }),
  powerRoute(s, 'start'),
  powerRoute(s, 'stop'),
  powerRoute(s, 'restart'),
  route({
    method: 'PATCH', path: '/servers/{serverId}', tag: 'servers', status: 200,
    summary: 'Change resources or network membership; a running server restarts gracefully to apply new resources.',
    description: 'Only while READY (`phase_busy`); the new reservation must fit the Node with the current one excluded (`insufficient_capacity`). A membership change applies at the next start (`RESTART_PENDING` until then).',
    params: ServerParams, query: DryRunQuery, dryRun: true,
    body: UpdateServer, response: ServerDetail, errors: ['phase_busy', 'insufficient_capacity', 'not_network_capable'],
    audit: { action: 'server.update', targetKind: 'server' },
    handler: async ({ caller, params, body, query, audit }) => s.servers.update(caller, params.serverId, body, audit, { dryRun: query.dryRun }),
  }),
  route({
    method: 'DELETE', path: '/servers/{serverId}', tag: 'servers', status: 202,
    summary: 'Delete the server: `desiredState: DELETED`, `phase: DELETING`; the record goes once the Node has removed it.',
    params: ServerParams, response: ServerDetail, errors: ['phase_busy'],
    audit: { action: 'server.delete', targetKind: 'server' },
    handler: async ({ caller, params, audit }) => s.servers.delete(caller, params.serverId, audit),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/reinstall', tag: 'servers', status: 202,
    summary: 'Retry a failed install: the server goes back to `PROVISIONING` with a new generation, and its Node installs the software again.',
    description: 'Only in phase `FAILED` with nothing installed (`invalid_transition` otherwise; `phase_busy` while another workflow runs). A failed install holds no reservation, so the retry places it again on its Node: `insufficient_capacity` when the room is gone, naming the servers that hold the most of it.',
    params: ServerParams, response: ServerDetail, errors: ['phase_busy', 'invalid_transition', 'insufficient_capacity'],
    audit: { action: 'server.reinstall', targetKind: 'server' },
    handler: async ({ caller, params, audit }) => s.servers.reinstall(caller, params.serverId, audit),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/conditions/{condition}/acknowledge', tag: 'servers', status: 200,
    summary: 'Acknowledge a condition (by id or reason); the acknowledgement becomes part of the desired spec.',
    description: 'A server stopped by a safety stop (e.g. `CRASH_LOOP`) can start again once the condition clears.',
    params: ConditionParams, response: ServerDetail, errors: ['phase_busy'],
    audit: { action: 'server.acknowledge', targetKind: 'server' },
    handler: async ({ caller, params, audit }) => s.servers.acknowledge(caller, params.serverId, params.condition, audit),
  }),
];

