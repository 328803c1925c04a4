import type { Command } from 'commander';
import type { AuditEvent, Condition, NodeInfo, Page, ServerDetail, ServerItem, ServerModpack } from '../api-types.js';
import type { CliClient } from '../client.js';
import { connect, print, withGlobals } from '../context.js';
import { fields, indent } from '../describe-lines.js';
import { describeWebhook } from '../describe-webhook.js';
import { ApiError, UsageError } from '../errors.js';
import { document, table } from '../output.js';
import { formatCpu, formatMemory, humanBytes } from '../quantity.js';
import { kinds, loadNames, resolve, resolveServer } from '../resolve.js';
import { runtimeWord, sleepWords } from '../sleep.js';

const auditShown = 10;

function conditions(title: string, list: Condition[], acknowledged: string[] = []): string {
  if (list.length === 0) return `${title}: <none>\n`;
  const body = list.map((c) => [c.reason, c.source, c.since, acknowledged.includes(c.id) ? 'yes' : 'no', c.message]);
  return `${title}:\n${indent(table([['REASON', 'SOURCE', 'SINCE', 'ACKNOWLEDGED', 'MESSAGE'], ...body]))}`;
}

/** The last audit events about `targetId`; the audit log is for global administrators, so others read why it is missing. */
async function events(client: CliClient, targetId: string): Promise<string> {
  let items: AuditEvent[];
  try {
    items = (await client.get<Page<AuditEvent>>(`/audit-events?targetId=${encodeURIComponent(targetId)}&limit=${auditShown}`)).items;
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) return 'Events: <the audit log is for global administrators>\n';
    throw e;
  }
  if (items.length === 0) return 'Events: <none>\n';
  const body = items.map((e) => [e.occurredAt, e.action, e.outcome, e.actorKind, Object.entries(e.details).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')]);
  return `Events (newest first):\n${indent(table([['TIME', 'ACTION', 'OUTCOME', 'ACTOR', 'DETAILS'], ...body]))}`;
}

/** `Fabulously Optimized (fabulously-optimized) 6.2.0: Minecraft 1.21.4, fabric 0.16.10`. */
const modpackWords = (m: ServerModpack) =>
  `${m.title ? `${m.title} (${m.project})` : m.project} ${m.versionName}: Minecraft ${m.game}, ${m.loader.template} ${m.loader.build}`;

async function describeServer(client: CliClient, s: ServerDetail): Promise<string> {
  const names = await loadNames(client, { teams: true, nodes: true });
  const usage = s.status.usage;
  const summary = fields([
    ['Name', s.name],
    ['ID', s.id],
    ['Team', names.team(s.teamId)],
    ['Node', names.node(s.nodeId)],
    ['Kind', s.kind],
    ['Software', `${s.software.template} ${s.software.version}${s.software.build ? ` (build ${s.software.build})` : ''}`],
    ...(s.modpack ? [['Modpack', modpackWords(s.modpack)] as [string, string]] : []),
    ['Resources', `cpu ${formatCpu(s.resources.cpuMillis)}, memory ${formatMemory(s.resources.memoryBytes)}`],
    ['Desired state', `${s.desiredState} (generation ${s.generation}, observed ${s.observedGeneration})`],
    ['Phase', s.phase],
    ['Runtime state', runtimeWord(s)],
    ...(s.status.sleeping ? [['Sleeping since', s.status.sleepingSince] as [string, string | undefined]] : []),
    ['Convergence', s.convergence],
    ['In network', s.inNetwork ? 'yes' : 'no'],
    ['Ports', s.ports.map((p) => `${p.name} ${p.hostPort}/${p.protocol}`).join(', ')],
    ['Sleep', sleepWords(s.sleep)],
    ['Restart policy', s.restartPolicy.maxRestarts === 0 ? 'no automatic restarts' : `at most ${s.restartPolicy.maxRestarts} restarts in ${s.restartPolicy.windowSeconds}s`],
    ['Usage', `cpu ${formatCpu(usage.cpuMillis)}, memory ${humanBytes(usage.memoryBytes)}, disk ${humanBytes(usage.diskBytes)}`],
    ['Started', s.status.startedAt],
    ['Markers', s.markers.join(', ')],
    ['Workflow', s.workflow && `${s.workflow.kind} at step ${s.workflow.step} since ${s.workflow.startedAt}${s.workflow.targetNodeId ? ` to ${names.node(s.workflow.targetNodeId)}` : ''}`],
    ['Created', s.createdAt],
    ['Updated', s.updatedAt],
  ]);
  return summary + conditions('Conditions', s.conditions, s.acknowledgedConditions) + (await events(client, s.id));
}

/** The Javas the Agent found, lowest major first (a server needing Java N starts on the lowest major ≥ N). */
function javas(runtimes: NodeInfo['status']['runtimes']): string | undefined {
  if (!runtimes) return undefined;
  const found = runtimes.filter((r) => r.name === 'java').sort((a, b) => a.major - b.major);
  if (found.length === 0) return 'none found (servers that need Java get RUNTIME_MISSING here)';
  return found.map((j) => `${j.major} (${j.version}, ${j.path})`).join('; ');
}

async function describeNode(client: CliClient, n: NodeInfo): Promise<string> {
  const servers = await client.all<ServerItem>('/servers', { nodeId: n.id });
  const st = n.status;
  const summary = fields([
    ['Name', n.name],
    ['ID', n.id],
    ['Admin state', n.adminState],
    ['Connection', st.connectionState],
    ['Accepts placements', n.acceptsPlacements ? 'yes' : 'no'],
    ['Address', n.reachAddress],
    ['Host', st.hostname && `${st.hostname} (${st.os}/${st.arch}, ${st.runtimeName} ${st.runtimeVersion})`],
    ['Agent version', st.agentVersion],
    ['Game ports', st.gamePorts && `${st.gamePorts.first}-${st.gamePorts.last}`],
    ['Java', javas(st.runtimes)],
    ['Allocatable', `cpu ${formatCpu(st.allocatable.cpuMillis)}, memory ${humanBytes(st.allocatable.memoryBytes)}, disk ${humanBytes(st.allocatable.diskBytes)}`],
    ['Reserved', `cpu ${formatCpu(n.reserved.cpuMillis)}, memory ${humanBytes(n.reserved.memoryBytes)}`],
    ['Free', `cpu ${formatCpu(n.free.cpuMillis)}, memory ${humanBytes(n.free.memoryBytes)}`],
    ['Usage', `cpu ${formatCpu(st.usage.cpuMillis)}, memory ${humanBytes(st.usage.memoryBytes)}, disk ${humanBytes(st.usage.diskBytes)}`],
    ['Last heartbeat', st.lastHeartbeatAt],
    ['Created', n.createdAt],
  ]);
  const serverList = servers.length === 0
    ? 'Servers: <none>\n'
    : `Servers:\n${indent(table([['NAME', 'DESIRED', 'PHASE', 'RUNTIME', 'CPU', 'MEMORY'], ...servers.map((s) => [s.name, s.desiredState, s.phase, runtimeWord(s) ?? '<none>', formatCpu(s.resources.cpuMillis), formatMemory(s.resources.memoryBytes)])]))}`;
  return summary + conditions('Conditions', n.conditions) + serverList + (await events(client, n.id));
}

export function registerDescribe(program: Command): void {
  withGlobals(program.command('describe'))
    .description('a server, Node or webhook for people: state, conditions, workflow, audit events; a webhook\'s latest deliveries')
    .addHelpText('after', '\nA sleeping server shows Runtime state SLEEPING and Sleeping since <time>; Sleep shows its setting (off, or after how long empty).')
    .argument('<type>', 'server|node|webhook')
    .argument('<name>', 'a name or id')
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (type: string, name: string, opts: { team?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      if (type === 'webhook' || type === 'webhooks') {
        print(await describeWebhook(client, name, format));
        return;
      }
      let detail: ServerDetail | NodeInfo;
      if (type === 'server' || type === 'servers') detail = await client.get<ServerDetail>(`/servers/${(await resolveServer(client, name, opts.team)).id}`);
      else if (type === 'node' || type === 'nodes') detail = await client.get<NodeInfo>(`/nodes/${(await resolve(client, kinds.node, name)).id}`);
      else throw new UsageError(`cannot describe "${type}" (server, node or webhook)`);
      if (format === 'json' || format === 'yaml') print(document(detail, format));
      else print('ports' in detail ? await describeServer(client, detail) : await describeNode(client, detail));
    });
}
