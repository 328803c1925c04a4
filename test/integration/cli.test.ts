import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { adminCredentials } from '../support/controller.js';
import type { Backup, Node, ServerDetail, ServerListItem, Team, User } from '../support/api-types.js';
import { killGames, startFleet, type Fleet } from '../support/fleet.js';
import { gamePortsArgs, privateGamePorts } from '../support/game-ports.js';
import { RunningProgram, runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';
import { cairnVersion } from '../../src/shared/version.js';

/**
 * The built `cairn` binary as users run it (a subprocess of dist/src/cli/main.js; `npm run build`
 * first), against a real Controller and a real Agent running simcraft.
 */
describe('cairn CLI: the built binary against a Controller and an Agent', function () {
  this.timeout(120_000);
  let f: Fleet;
  let home: string;
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: env(), stdin });
  const ok = async (args: string[], stdin?: string) => {
    const res = await cairn(args, stdin);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  const json = async <T>(args: string[]) => JSON.parse(await ok([...args, '-o', 'json'])) as T;
  const running: RunningProgram[] = [];

  before(async () => {
    f = await startFleet();
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await f.dispose();
    await rm(home, { recursive: true, force: true });
  });

  describe('usage', () => {
    it('--version prints the package version; --help lists the verbs; both exit 0', async () => {
      expect((await ok(['--version'])).trim()).to.equal(cairnVersion);
      const help = await ok(['--help']);
      for (const verb of ['login', 'get', 'describe', 'create', 'apply', 'logs', 'exec', 'cp', 'wait', 'backup', 'restore', 'migrate', 'drain', 'completion']) expect(help).to.match(new RegExp(`^  ${verb}\\b`, 'm'));
      expect(await ok(['create', 'server', '--help'])).to.include('--memory <quantity>');
    });

    it('a usage error exits 2 and names what is wrong: unknown flag, unknown verb, bad -o, bad quantity', async () => {
      const cases: [string[], RegExp][] = [
        [['get', 'servers', '--frobnicate'], /unknown option '--frobnicate'/],
        [['frobnicate'], /unknown command 'frobnicate'/],
        [['get', 'servers', '-o', 'xml'], /argument 'xml' is invalid/],
        [['get', 'pods'], /unknown type "pods"/],
        [['create', 'server', 'x', '--team', 'Ops', '--template', 'simcraft', '--version', '1', '--cpu', 'lots'], /cpu "lots" is not a quantity/],
        [['wait', 'server', 'x', '--for', 'happy'], /--for must be one of converged, running, stopped, ready, deleted/],
      ];
      for (const [args, message] of cases) {
        const res = await cairn(args);
        expect(res.code, args.join(' ')).to.equal(2);
        expect(res.stderr, args.join(' ')).to.match(message);
      }
    });

    it('without credentials a command says how to sign in and exits 1', async () => {
      const res = await cairn(['get', 'servers']);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(/not signed in: run `cairn login/);
    });

    it('completion scripts for bash and zsh are valid shell', async () => {
      const script = await ok(['completion', 'bash']);
      expect(script).to.include('complete -F _cairn cairn');
      expect(spawnSync('bash', ['-n'], { input: script }).status).to.equal(0);
      expect(await ok(['completion', 'zsh'])).to.match(/^#compdef cairn/);
      const words = spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(cairn get ser); COMP_CWORD=2; _cairn; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
      expect(words.stdout.trim()).to.equal('servers');
    });
  });

  describe('signed in', () => {
    it('login reads the password from stdin and keeps only an API token, mode 0600; whoami shows the user', async () => {
      const res = await cairn(['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stderr).to.include(`Logged in to ${f.t.baseUrl} as admin`);
      expect((await stat(join(home, 'credentials.json'))).mode & 0o777).to.equal(0o600);
      const stored = await readFile(join(home, 'credentials.json'), 'utf8');
      expect(stored).to.match(/cairn_pat_/).and.not.include(adminCredentials.password);
      expect(await ok(['whoami'])).to.match(/^admin\s+Admin\s+admin@example\.com\s+yes$/m);
      expect((await json<User>(['whoami'])).username).to.equal('admin');
    });

    it('the API\'s refusal exits 1 with Error from server (<code>): <detail>', async () => {
      const res = await cairn(['create', 'team', 'Ops']);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.equal('Error from server (conflict): A team with that name already exists.\n');
      const missing = await cairn(['get', 'servers', 'nowhere']);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.equal('Error from server (not_found): server "nowhere" not found\n');
    });

    it('users, roles and team members by name: create, set, list, remove', async () => {
      expect(await ok(['create', 'user', 'alice', '--email', 'alice@example.com', '--password-stdin'], 'first-password-1\n')).to.equal('user/alice created\n');
      expect(await ok(['create', 'role', 'watcher', '--permission', 'servers.read,servers.console'])).to.equal('role/watcher created\n');
      expect(await ok(['get', 'roles', 'watcher'])).to.match(/^watcher\s+no\s+2$/m);
      expect(await ok(['set', 'member', 'alice', '--team', 'Ops', '--role', 'operator', '--role', 'watcher'])).to.equal('member/alice set in team/Ops (operator, watcher)\n');
      expect(await ok(['get', 'members', '--team', 'Ops'])).to.match(/^USER\s+TEAM\s+ROLES\nalice\s+Ops\s+operator,watcher\n$/);
      expect(await ok(['get', 'users', '-o', 'name'])).to.equal('user/admin\nuser/alice\n');
      expect(await ok(['delete', 'member', 'alice', '--team', 'Ops'])).to.equal('member/alice removed from team/Ops\n');
      expect((await json<{ items: unknown[] }>(['get', 'members', '--team', 'Ops'])).items).to.deep.equal([]);
      const noTeam = await cairn(['get', 'members']);
      expect(noTeam.code).to.equal(2);
      expect(noTeam.stderr).to.equal('error: team members need --team TEAM\n');
      expect(await ok(['delete', 'role', 'watcher'])).to.equal('role/watcher deleted\n');
      expect(await ok(['delete', 'user', 'alice'])).to.equal('user/alice deleted\n');
    });

    it('creates a server by team and Node names with Kubernetes quantities, and waits for READY', async () => {
      expect(await ok(['create', 'server', 'lobby', '--team', 'Ops', '--template', 'simcraft', '--version', '1.21.4', '--cpu', '500m', '--memory', '512Mi', '--node', 'node-1']))
        .to.equal('server/lobby created\n');
      expect(await ok(['wait', 'server', 'lobby', '--for=ready', '--timeout', '60s'])).to.equal('server/lobby condition met\n');
      const [server] = (await json<{ items: ServerListItem[] }>(['get', 'servers'])).items;
      expect(server).to.include({ name: 'lobby', teamId: f.teamId, nodeId: f.nodeId, phase: 'READY' });
      expect(server.resources).to.deep.equal({ cpuMillis: 500, memoryBytes: 512 * 2 ** 20 });
      expect(await ok(['get', 'servers'])).to.match(/^NAME\s+TEAM\s+NODE\s+DESIRED\s+PHASE\s+RUNTIME\s+CONVERGENCE\nlobby\s+Ops\s+node-1\s+STOPPED\s+READY\s+STOPPED\s+CONVERGED\n$/);
      expect(await ok(['get', 'servers', '-o', 'wide'])).to.match(/simcraft 1\.21\.4\s+500m\s+512Mi/);
      expect(await ok(['get', 'servers', '-o', 'name'])).to.equal('server/lobby\n');
      expect((YAML.parse(await ok(['get', 'server', 'lobby', '-o', 'yaml'])) as ServerDetail).observedGeneration).to.equal(1);
    });

    it('starts by name and waits for running through the watch; describe shows the state and the audit trail', async () => {
      expect(await ok(['start', 'lobby'])).to.equal('server/lobby starting\n');
      await ok(['wait', 'server', 'lobby', '--for', 'running', '--timeout', '60s']);
      await ok(['wait', 'server', 'lobby', '--for', 'converged', '--timeout', '60s']);
      expect((await json<ServerDetail>(['get', 'servers', 'lobby'])).status.runtimeState).to.equal('RUNNING');
      const described = await ok(['describe', 'server', 'lobby']);
      expect(described).to.match(/^Name:\s+lobby$/m).and.match(/^Team:\s+Ops$/m).and.match(/^Runtime state:\s+RUNNING$/m);
      expect(described).to.match(/^Conditions: <none>$/m).and.match(/^Workflow:\s+<none>$/m);
      expect(described).to.match(/^Events \(newest first\):\n\s+TIME\s+ACTION/m).and.match(/server\.start\s+SUCCESS\s+API_TOKEN/).and.match(/server\.create\s+SUCCESS/);
      const node = await ok(['describe', 'node', 'node-1']);
      expect(node).to.match(/^Connection:\s+HEALTHY$/m).and.match(/^\s+lobby\s+RUNNING\s+READY\s+RUNNING\s+500m\s+512Mi$/m);
      // The Javas the real Agent found on this host, as the API lists them (or that it found none).
      const runtimes = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.runtimes ?? [];
      const java = /^Java:\s+(.*)$/m.exec(node)?.[1];
      if (runtimes.length === 0) expect(java).to.match(/^none found/);
      for (const r of runtimes) expect(java).to.include(`${r.major} (${r.version}, ${r.path})`);
    });

    it('exec types a console command and prints its output; logs prints the tail and ends by itself', async () => {
      expect(await ok(['exec', 'lobby', '--', 'say', 'hello', 'from', 'the', 'cli'])).to.match(/\[Server\] hello from the cli/);
      const logs = await ok(['logs', 'lobby', '--tail', '50']);
      expect(logs).to.match(/Done \([\d.]+s\)! For help, type "help"/).and.match(/\[Server\] hello from the cli/);
      expect(await ok(['logs', 'lobby', '--tail', '1'])).to.match(/^[^\n]*\[Server\] hello from the cli\n$/);
    });

    it('logs -f follows new lines until stopped', async () => {
      const follow = new RunningProgram('cli', ['logs', 'lobby', '-f', '--tail', '0'], env());
      running.push(follow);
      await waitFor(async () => {
        await ok(['exec', 'lobby', '--wait', '100ms', '--', 'say', 'followed']);
        return follow.stdout.includes('[Server] followed');
      }, { timeoutMs: 20_000, intervalMs: 200, what: 'logs -f to print the new line' });
      await follow.stop();
    });

    it('cp copies a file to a server and back, into a directory by its name, and to stdout', async () => {
      const local = join(home, 'motd.txt');
      await writeFile(local, 'Welcome to the lobby\n');
      // Each copy says what it copied and where; to stdout (-) the file alone is printed.
      expect(await ok(['cp', local, 'lobby:motd.txt'])).to.equal('copied 21 bytes to lobby:motd.txt\n');
      expect(await ok(['cp', 'lobby:motd.txt', '-'])).to.equal('Welcome to the lobby\n');
      expect(await ok(['cp', local, 'lobby:plugins/'])).to.equal('copied 21 bytes to lobby:plugins/motd.txt\n');
      expect(await ok(['cp', 'lobby:plugins/motd.txt', join(home, 'back.txt')])).to.equal(`copied 21 bytes from lobby:plugins/motd.txt to ${join(home, 'back.txt')}\n`);
      expect(await readFile(join(home, 'back.txt'), 'utf8')).to.equal('Welcome to the lobby\n');
      expect(await ok(['cp', 'lobby:server.properties', '-'])).to.match(/^server-port=\d+$/m);
      const refused = await cairn(['cp', local, 'lobby:.cairn/x']);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/^Error from server \(read_only\)/);
    });

    it('a name two teams use is refused with both listed; --team narrows it', async () => {
      await ok(['create', 'team', 'Creative']);
      await ok(['create', 'server', 'lobby', '--team', 'Creative', '--template', 'simcraft', '--version', '1.21.4', '--cpu', '250m', '--memory', '256Mi']);
      const res = await cairn(['stop', 'lobby']);
      expect(res.code).to.equal(1);
      const creative = (await json<{ items: Team[] }>(['get', 'teams'])).items.find((t) => t.name === 'Creative')!;
      const both = (await json<{ items: ServerListItem[] }>(['get', 'servers'])).items;
      expect(res.stderr).to.include('server name "lobby" is ambiguous: 2 servers match; name one by id, or narrow with --team:');
      for (const s of both) expect(res.stderr).to.include(`${s.id}  team ${s.teamId === creative.id ? 'Creative' : 'Ops'}  node node-1`);
      expect((await json<ServerDetail>(['get', 'server', 'lobby', '--team', 'Creative'])).teamId).to.equal(creative.id);
      const byId = both.find((s) => s.teamId === creative.id)!.id;
      expect(await ok(['get', 'server', byId, '-o', 'name'])).to.equal('server/lobby\n');
      expect(await ok(['get', 'servers', '--team', 'Creative', '-o', 'name'])).to.equal('server/lobby\n');
    });

    it('get --watch prints the list, then each change as it happens', async () => {
      const watch = new RunningProgram('cli', ['get', 'servers', '--watch', '--team', 'Ops'], env());
      running.push(watch);
      await waitFor(() => /^lobby\s+Ops\s+node-1\s+RUNNING\s+READY\s+RUNNING/m.test(watch.stdout), { timeoutMs: 20_000, what: 'the listed server' });
      await ok(['stop', 'lobby', '--team', 'Ops']);
      await waitFor(() => /^lobby\s+Ops\s+node-1\s+STOPPED\s+READY\s+STOPPED\s+CONVERGED/m.test(watch.stdout), { timeoutMs: 30_000, what: 'the stopped server in the watch' });
      await watch.stop();
      expect(watch.stdout.match(/^NAME/gm)).to.have.length(1);
      expect(watch.stdout).to.not.include('Creative');
    });

    it('wait gives up at its timeout with exit 1 and says what the server is doing', async () => {
      const res = await cairn(['wait', 'server', 'lobby', '--team', 'Ops', '--for=running', '--timeout', '1s']);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(/timed out after 1s waiting for server\/lobby to be running \(now desired STOPPED, phase READY, runtime STOPPED, convergence CONVERGED\)/);
    });

    it('apply creates and changes servers to match a file, shows the diff with --dry-run, and a second apply changes nothing', async () => {
      const file = join(home, 'servers.yaml');
      await writeFile(file, YAML.stringify([
        { kind: 'Server', name: 'arena', team: 'Ops', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpu: '250m', memory: '256Mi' }, desiredState: 'RUNNING', properties: { motd: 'Arena', 'max-players': 30 } },
        { kind: 'Server', name: 'lobby', team: 'Creative', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpu: '250m', memory: '512Mi' } },
      ]));
      const dry = await ok(['apply', '-f', file, '--dry-run']);
      expect(dry).to.equal([
        'server/arena created (dry run)', '  + software: simcraft 1.21.4', '  + resources: cpu 250m, memory 256Mi', '  + properties.motd: Arena', '  + properties.max-players: 30', '  + desiredState: RUNNING',
        'server/lobby configured (dry run)', '  ~ resources.memory: 256Mi -> 512Mi', '',
      ].join('\n'));
      expect((await json<{ items: ServerListItem[] }>(['get', 'servers'])).items.map((s) => s.name)).to.not.include('arena');
      expect(await ok(['apply', '-f', file])).to.equal('server/arena created\nserver/lobby configured\n');
      await ok(['wait', 'server', 'arena', '--for=running', '--timeout', '60s']);
      expect(await ok(['cp', 'arena:server.properties', '-'])).to.match(/^motd=Arena$/m).and.match(/^max-players=30$/m);
      expect(await ok(['apply', '-f', file])).to.equal('server/arena unchanged\nserver/lobby unchanged\n');
      expect(await ok(['apply', '-f', '-'], await readFile(file, 'utf8'))).to.equal('server/arena unchanged\nserver/lobby unchanged\n');
      expect((await json<ServerDetail>(['get', 'server', 'lobby', '--team', 'Creative'])).resources.memoryBytes).to.equal(512 * 2 ** 20);
    });

    it('backup, get backups and restore: a file written after the backup is gone after the restore', async () => {
      const backup = JSON.parse(await ok(['backup', 'arena', '--destination', 'controller', '-o', 'json'])) as Backup;
      expect(backup.trigger).to.equal('MANUAL');
      await waitFor(async () => (await f.admin.get<Backup>(`/backups/${backup.id}`)).body.state === 'SUCCEEDED', { timeoutMs: 60_000, intervalMs: 200, what: 'the backup to succeed' });
      expect(await ok(['get', 'backups', '--server', 'arena'])).to.match(new RegExp(`^${backup.id}\\s+arena\\s+MANUAL\\s+SUCCEEDED`, 'm'));
      expect(await ok(['get', 'backup', backup.id, '-o', 'name'])).to.equal(`backup/${backup.id}\n`);
      const late = join(home, 'late.txt');
      await writeFile(late, 'written after the backup\n');
      await ok(['cp', late, 'arena:late.txt']);
      expect(await ok(['restore', backup.id])).to.equal(`server/arena restoring from backup/${backup.id}\n`);
      await ok(['wait', 'server', 'arena', '--for=ready', '--timeout', '90s']);
      await ok(['wait', 'server', 'arena', '--for=running', '--timeout', '60s']);
      const gone = await cairn(['cp', 'arena:late.txt', '-']);
      expect(gone.code).to.equal(1);
      expect(await ok(['cp', 'arena:server.properties', '-'])).to.match(/^motd=Arena$/m);
    });

    it('create node prints the exact cairn-agent command; run as printed, the Agent enrolls and the Node is HEALTHY', async () => {
      const agentDir = await mkdtemp(join(tmpdir(), 'cairn-agent-'));
      const res = await cairn(['create', 'node', 'host-2', '--data-dir', agentDir]);
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stderr).to.match(/^node\/host-2 created\. On the new host, run \(the token works once, until .+\):\n$/);
      const words = res.stdout.trim().split(' ');
      expect(words.slice(0, 6)).to.deep.equal(['cairn-agent', '--controller', `127.0.0.1:${f.t.controller.grpcPort}`, '--data-dir', agentDir, '--enrollment-token']);
      expect(words).to.have.length(7);
      const agent = new RunningProgram('agent', [...words.slice(1), ...gamePortsArgs(await privateGamePorts())]);
      running.push(agent);
      try {
        await waitFor(async () => (await json<Node>(['get', 'node', 'host-2'])).status.connectionState === 'HEALTHY', { timeoutMs: 30_000, intervalMs: 250, what: 'host-2 HEALTHY' });
      } finally {
        await agent.stop();
        await killGames(agentDir);
      }
      expect(await ok(['delete', 'node', 'host-2'])).to.equal('node/host-2 deleted\n');
      await rm(agentDir, { recursive: true, force: true });
    });

    it('delete and wait --for=deleted', async () => {
      expect(await ok(['delete', 'server', 'lobby', '--team', 'Creative'])).to.equal('server/lobby deleted\n');
      await ok(['wait', 'server', 'lobby', '--team', 'Creative', '--for=deleted', '--timeout', '60s']);
      expect(await ok(['get', 'servers', '-o', 'name'])).to.equal('server/lobby\nserver/arena\n');
    });

    it('logout revokes the token and forgets it; the token no longer works', async () => {
      const { token } = JSON.parse(await readFile(join(home, 'credentials.json'), 'utf8')) as { token: string };
      expect(await ok(['whoami', '--url', f.t.baseUrl, '--token', token, '-o', 'name'])).to.equal('user/admin\n');
      const res = await cairn(['logout']);
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stderr).to.equal(`Logged out of ${f.t.baseUrl}.\n`);
      expect(await readFile(join(home, 'credentials.json'), 'utf8').catch(() => 'gone')).to.equal('gone');
      const refused = await cairn(['whoami', '--url', f.t.baseUrl, '--token', token]);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/^Error from server \(unauthenticated\)/);
    });
  });
});
