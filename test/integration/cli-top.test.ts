import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { adminCredentials } from '../support/controller.js';
import type { CommandSent, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

const Mi = 2 ** 20;

/** What `cairn top servers -o json` prints per server (the CLI's own rows, not an API shape). */
type Row = Record<string, unknown> & { name: string };

/**
 * `cairn top servers` and `cairn top nodes` as users run them (the built binary, `npm run build`
 * first), against a real Controller and a real Agent running simcraft.
 */
describe('cairn top: the built binary against a Controller and an Agent', function () {
  this.timeout(120_000);
  let f: Fleet;
  let home: string;
  let busyId: string;
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: env(), stdin });
  const ok = async (args: string[]) => {
    const res = await cairn(args);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  const topJson = async (args: string[] = []) => JSON.parse(await ok(['top', 'servers', ...args, '-o', 'json'])) as Row[];

  before(async () => {
    // Samples (usage and the players ping) every second rather than every 10 s, so the first shows soon.
    f = await startFleet({ agentArgs: ['--status-interval-ms', '1000'] });
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    const login = await cairn(['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(login.code, login.stderr).to.equal(0);
    await ok(['create', 'team', 'Other']);
    await ok(['create', 'server', 'busy', '--team', 'Ops', '--template', 'simcraft', '--version', '1.21.4', '--cpu', '500m', '--memory', '512Mi', '--node', 'node-1']);
    await ok(['create', 'server', 'idle', '--team', 'Ops', '--template', 'simcraft', '--version', '1.21.4', '--cpu', '500m', '--memory', '1Gi', '--node', 'node-1']);
    await ok(['wait', 'server', 'busy', '--for=ready', '--timeout', '60s']);
    await ok(['wait', 'server', 'idle', '--for=ready', '--timeout', '60s']);
    await ok(['start', 'busy']);
    await ok(['wait', 'server', 'busy', '--for=running', '--timeout', '60s']);
    busyId = (JSON.parse(await ok(['get', 'server', 'busy', '-o', 'json'])) as ServerDetail).id;
    // The first ping's players are written at once, and the usage sampled with them; usage alone is written at most every 30 s.
    await waitForServer(f.admin, busyId, (s) => s.status.usage.memoryBytes > 0, 'the first usage sample of busy', 40_000);
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await f?.dispose();
    if (home) await rm(home, { recursive: true, force: true });
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  it('top servers: the running server with its Node, CPU and memory used of its reservation; a stopped one is left out', async () => {
    const out = await ok(['top', 'servers']);
    const [header, ...lines] = out.trimEnd().split('\n');
    expect(header).to.match(/^NAME\s+NODE\s+CPU\s+MEMORY\s+PLAYERS$/);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^busy\s+node-1\s+\d+\.\d\d\/0\.50\s+[1-9][\d.]*(Ki|Mi|Gi)\/512Mi\s+(-|\d+\/20)$/);
    expect(out).to.not.include('idle');
  });

  it('-o json and -o yaml print one object per running server with the raw figures', async () => {
    const rows = await topJson();
    expect(rows).to.have.length(1);
    const [row] = rows;
    expect(row).to.include({ name: 'busy', node: 'node-1', cpuReservedMillis: 500, memoryReservedBytes: 512 * Mi });
    expect(row.cpuMillis).to.be.a('number').and.at.least(0);
    expect(row.memoryBytes).to.be.a('number').and.above(0);
    expect(Object.keys(row)).to.include.members(['name', 'node', 'cpuMillis', 'cpuReservedMillis', 'memoryBytes', 'memoryReservedBytes']);
    const yaml = YAML.parse(await ok(['top', 'servers', '-o', 'yaml'])) as Row[];
    expect(yaml.map((r) => [r.name, r.memoryReservedBytes])).to.deep.equal([['busy', 512 * Mi]]);
  });

  it('--node and --team narrow by name; a team with nothing running prints nothing and says so on stderr', async () => {
    expect((await topJson(['--node', 'node-1'])).map((r) => r.name)).to.deep.equal(['busy']);
    expect((await topJson(['--team', 'Ops', '--sort-by', 'name'])).map((r) => r.name)).to.deep.equal(['busy']);
    const none = await cairn(['top', 'servers', '--team', 'Other']);
    expect(none.code, none.stderr).to.equal(0);
    expect(none.stdout).to.equal('');
    expect(none.stderr).to.equal('No running servers found.\n');
    const unknownTeam = await cairn(['top', 'servers', '--team', 'Nobody']);
    expect(unknownTeam.code).to.equal(1);
    expect(unknownTeam.stderr).to.equal('Error from server (not_found): team "Nobody" not found\n');
  });

  it('cairn --help lists top; top --help its two kinds; completion offers them and the --sort-by keys', async () => {
    expect(await ok(['--help'])).to.match(/^ {2}top\b/m);
    const help = await ok(['top', '--help']);
    expect(help).to.match(/^ {2}servers \[options\]/m).and.match(/^ {2}nodes \[options\]/m);
    expect(await ok(['top', 'servers', '--help'])).to.include('--sort-by <key>').and.include('"cpu", "memory", "players", "name"');
    const script = await ok(['completion', 'bash']);
    const complete = (words: string) => spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _cairn; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).stdout.trim();
    expect(complete('cairn top ""')).to.equal('servers nodes');
    expect(complete('cairn top servers --sort-by ""')).to.equal('cpu memory players name');
  });

  it('an unknown --sort-by is a usage error (exit 2) naming the allowed keys', async () => {
    const res = await cairn(['top', 'servers', '--sort-by', 'ram']);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.match(/argument 'ram' is invalid\. Allowed choices are cpu, memory, players, name/);
    expect(res.stdout).to.equal('');
  });

  it('top nodes: host usage and its share, what the servers reserve of what the Node offers, its servers', async () => {
    const [header, ...lines] = (await ok(['top', 'nodes'])).trimEnd().split('\n');
    expect(header).to.match(/^NAME\s+CONNECTION\s+CPU\s+CPU%\s+MEMORY\s+MEMORY%\s+RESERVED-CPU\s+RESERVED-MEMORY\s+SERVERS\s+PLAYERS$/);
    expect(lines).to.have.length(1);
    // The fleet's Agent offers 8 cores and 8 GiB; busy and idle reserve 500m + 500m and 512Mi + 1Gi (a stopped server keeps its reservation).
    expect(lines[0]).to.match(/^node-1\s+HEALTHY\s+\d+\.\d\d\s+\d+%\s+[\d.]+(Ki|Mi|Gi)?\s+\d+%\s+1\.00\/8\.00\s+1\.5Gi\/8Gi\s+2\s+(-|\d+)$/);
    const [node] = JSON.parse(await ok(['top', 'nodes', '-o', 'json'])) as Row[];
    expect(node).to.include({ name: 'node-1', connection: 'HEALTHY', cpuAllocatableMillis: 8000, cpuReservedMillis: 1000, memoryReservedBytes: 1536 * Mi, servers: 2 });
    expect(node.memoryBytes).to.be.a('number').and.above(0);
  });

  it('players: what the Agent\'s Server List Ping reports shows in PLAYERS within 30 s', async () => {
    expect((await f.admin.post<CommandSent>(`/servers/${busyId}/console/commands`, { command: 'fakeplayers 4' })).status).to.equal(200);
    const row = await waitFor(async () => (await topJson()).find((r) => r.name === 'busy' && r.playersOnline === 4), { timeoutMs: 30_000, intervalMs: 500, what: 'playersOnline 4 in cairn top servers -o json' });
    expect(row).to.include({ playersMax: 20 });
    expect(await ok(['top', 'servers'])).to.match(/^busy\s+node-1\s+\S+\s+\S+\s+4\/20$/m);
    expect(await ok(['top', 'nodes'])).to.match(/^node-1\s.*\s2\s+4$/m);
    const stopped = await ok(['stop', 'busy']);
    expect(stopped).to.equal('server/busy stopping\n');
    await ok(['wait', 'server', 'busy', '--for=stopped', '--timeout', '60s']);
    const after = await cairn(['top', 'servers']);
    expect(after.stdout).to.equal('');
    expect(after.stderr).to.equal('No running servers found.\n');
  });
});
