import type { Command } from 'commander';
import type { AgentLink, CreatedApiToken, EnrollmentIssued, Role, ServerDetail, Sleep, Team, User } from '../api-types.js';
import { collect, connect, print, withGlobals } from '../context.js';
import { formatDone } from '../output.js';
import { parseCpu, parseMemory } from '../quantity.js';
import { readLineFromStdin } from '../read-secret.js';
import { kinds, resolve } from '../resolve.js';
import { hostPort, shellQuote } from '../shell-quote.js';
import { sleepSeconds } from '../sleep.js';
import { UsageError } from '../errors.js';
import { softwareChoice, softwareOf, type SoftwareFlags } from '../server-software.js';
import { registerCreateDestination } from './create-destination.js';
import { registerCreateSshKey } from './create-ssh-key.js';
import { registerCreateWebhook } from './create-webhook.js';
import { registerCreateSchedule } from './schedules.js';

/** The Agent command line for a new Node: where the Agent link listens, as the Controller says (GET /agent-link). */
export function agentCommand(link: AgentLink, controllerUrl: string, token: string, dataDir: string, ca: string | undefined): string {
  const host = link.host ?? new URL(controllerUrl).hostname;
  const words = ['cairn-agent', '--controller', hostPort(host, link.port), '--data-dir', dataDir, '--enrollment-token', token];
  if (link.tls) words.push('--controller-ca', ca ?? 'CA_FILE');
  return words.map(shellQuote).join(' ');
}

interface CreateServerOptions extends SoftwareFlags {
  team: string;
  cpu: string;
  memory: string;
  node?: string;
  inNetwork?: boolean;
  sleepAfter?: string;
  /** commander's `--no-wake-on-join`: true unless given. */
  wakeOnJoin: boolean;
}

function sleepOf(opts: CreateServerOptions): Sleep | undefined {
  if (opts.sleepAfter === undefined) {
    if (!opts.wakeOnJoin) throw new UsageError('--no-wake-on-join needs --sleep-after');
    return undefined;
  }
  return { afterEmptySeconds: sleepSeconds(opts.sleepAfter, '--sleep-after'), ...(opts.wakeOnJoin ? {} : { wakeOnJoin: false }) };
}

export function registerCreate(program: Command): void {
  const create = program.command('create').description('create a server, Node, team, user, role, API token, backup destination, webhook, schedule or SSH key').helpCommand(false);
  registerCreateDestination(create);
  registerCreateWebhook(create);
  registerCreateSchedule(create);
  registerCreateSshKey(create);

  withGlobals(create.command('server'))
    .description('create a game server (STOPPED until `cairn start`)')
    .argument('<name>')
    .requiredOption('--team <team>', 'the team (name or id)')
    .option('--template <template>', 'the software template, e.g. paper, fabric or simcraft (`cairn get templates`); required unless --modpack')
    .option('--version <version>', 'the software version (for fabric, neoforge and forge: the game version); required unless --modpack')
    .option('--build <build>', 'the build (for fabric, neoforge and forge: the loader version); default: the newest the template lists (`cairn get versions TEMPLATE -o wide`)')
    .option('--modpack <slug[:version]>', 'a Modrinth modpack instead of --template/--version: its project slug, and a version id (default: its newest version)')
    .option('--cpu <quantity>', 'CPU: 500m, 1, 2.5', '1')
    .option('--memory <quantity>', 'memory: 512Mi, 2Gi', '1Gi')
    .option('--node <node>', 'place it on this Node (name or id); default: the Controller places it')
    .option('--in-network', 'join the network')
    .option('--sleep-after <duration>', 'sleep when no player was online this long (600, 10m; 10s to 24h): the game stops, its port still answers, a join wakes it')
    .option('--no-wake-on-join', 'with --sleep-after: a join does not wake it, only `cairn start` does')
    .action(async (name: string, opts: CreateServerOptions, cmd: Command) => {
      const resources = { cpuMillis: parseCpu(opts.cpu), memoryBytes: parseMemory(opts.memory) };
      const sleep = sleepOf(opts);
      const choice = softwareChoice(opts);
      const { client, format } = await connect(cmd);
      const created = await client.post<ServerDetail>('/servers', {
        name,
        teamId: (await resolve(client, kinds.team, opts.team)).id,
        software: await softwareOf(client, choice),
        resources,
        ...(opts.node === undefined ? {} : { nodeId: (await resolve(client, kinds.node, opts.node)).id }),
        ...(opts.inNetwork ? { inNetwork: true } : {}),
        ...(sleep ? { sleep } : {}),
      });
      print(formatDone('server', created.name, 'created', created, format));
    });

  withGlobals(create.command('node'))
    .description('create a Node; prints the `cairn-agent` command that enrolls it')
    .argument('<name>')
    .option('--address <address>', 'where other Nodes reach this one (default: the address its Agent connects from)')
    .option('--data-dir <dir>', 'the Agent data dir to put in the command', '/var/lib/cairn-agent')
    .option('--controller-ca <file>', 'the CA file to put in the command when the Agent link runs TLS')
    .action(async (name: string, opts: { address?: string; dataDir: string; controllerCa?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const issued = await client.post<EnrollmentIssued>('/nodes', { name, ...(opts.address ? { address: opts.address } : {}) });
      if (format !== 'table' && format !== 'wide') {
        print(formatDone('node', issued.node.name, 'created', issued, format));
        return;
      }
      const link = await client.get<AgentLink>('/agent-link');
      process.stderr.write(`node/${issued.node.name} created. On the new host, run (the token works once, until ${issued.enrollmentExpiresAt}):\n`);
      print(agentCommand(link, client.url, issued.enrollmentToken, opts.dataDir, opts.controllerCa) + '\n');
    });

  withGlobals(create.command('team'))
    .description('create a team')
    .argument('<name>')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const team = await client.post<Team>('/teams', { name });
      print(formatDone('team', team.name, 'created', team, format));
    });

  withGlobals(create.command('user'))
    .description('create a user (who must change the password at first sign-in)')
    .argument('<username>')
    .requiredOption('--email <email>')
    .option('--display-name <name>', 'default: the username')
    .option('--password-stdin', 'read the first password from stdin (required)')
    .option('--admin', 'a global administrator')
    .action(async (username: string, opts: { email: string; displayName?: string; passwordStdin?: boolean; admin?: boolean }, cmd: Command) => {
      if (!opts.passwordStdin) throw new UsageError('--password-stdin is required: pipe the first password in');
      const { client, format } = await connect(cmd);
      const user = await client.post<User>('/users', {
        username, email: opts.email, displayName: opts.displayName ?? username, password: await readLineFromStdin(), ...(opts.admin ? { globalAdmin: true } : {}),
      });
      print(formatDone('user', user.username, 'created', user, format));
    });

  withGlobals(create.command('role'))
    .description('create a role: a named set of permissions')
    .argument('<name>')
    .requiredOption('--permission <permission>', 'a permission, e.g. servers.read (repeat, or separate with commas)', collect)
    .option('--description <text>')
    .action(async (name: string, opts: { permission: string[]; description?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const role = await client.post<Role>('/roles', { name, permissions: opts.permission, ...(opts.description ? { description: opts.description } : {}) });
      print(formatDone('role', role.name, 'created', role, format));
    });

  withGlobals(create.command('token'))
    .description('create an API token of yours, scoped or not; prints its secret once (on stdout)')
    .argument('<name>')
    .option('--permission <permission>', 'scope it to this team permission, e.g. servers.start (repeat, or separate with commas)', collect)
    .option('--team <team>', 'scope it to this team (name or id; repeat, or separate with commas)', collect)
    .option('--expires-at <time>', 'when it stops working (ISO 8601, e.g. 2027-01-31T00:00:00Z)')
    .action(async (name: string, opts: { permission?: string[]; team?: string[]; expiresAt?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const teamIds = opts.team ? await Promise.all(opts.team.map(async (ref) => (await resolve(client, kinds.team, ref)).id)) : undefined;
      const token = await client.post<CreatedApiToken>('/me/tokens', {
        name, ...(opts.permission ? { permissions: opts.permission } : {}), ...(teamIds ? { teamIds } : {}), ...(opts.expiresAt ? { expiresAt: opts.expiresAt } : {}),
      });
      if (format === 'table' || format === 'wide' || format === 'name') {
        process.stderr.write(`token/${token.name} created${token.permissions || token.teamIds ? ' (scoped)' : ''}; its secret is shown this once:\n`);
        print(`${token.token}\n`);
      } else {
        print(formatDone('token', token.name, 'created', token, format));
      }
    });
}
