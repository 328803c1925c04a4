import { expect } from 'chai';
import { access, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PortRange } from '../../src/shared/link/messages.js';
import { AgentProcess } from '../support/agent-process.js';
import type { EnrollmentIssued, Node } from '../support/api-types.js';
import { GiB, killGames, startFleet, type Fleet } from '../support/fleet.js';
import { removeGameNetworks } from '../support/game-networks.js';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';

// Games of their own uids need root (CI and these machines run as root); elsewhere no range is claimed or checked.
const asRoot = process.getuid?.() === 0;

(asRoot ? describe : describe.skip)('--game-uids on a host: claimed among its Agents, checked against its accounts (real Agents as root)', function () {
  this.timeout(120_000);
  const firstRange = '320000-329999';
  let f: Fleet;
  let claims: string;
  let etc: string;
  let secondDir: string;
  let second: { nodeId: string; token: string };
  const agents: AgentProcess[] = [];
  /** Each second Agent's game ports: its nftables table is named after them and goes in `after`. */
  const secondPorts: PortRange[] = [];

  const healthy = (nodeId: string) =>
    waitFor(async () => (await f.admin.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' || undefined, { what: `${nodeId} HEALTHY`, timeoutMs: 30_000 });

  /** Another Agent on this host, on the second Node's data dir, boxed, with these uids (and host accounts files, when given). */
  async function secondAgent(range: string, env: Record<string, string> = {}): Promise<AgentProcess> {
    const gamePorts = await privateGamePorts();
    secondPorts.push(gamePorts);
    const agent = AgentProcess.start({
      grpcPort: f.t.controller.grpcPort, dataDir: secondDir, gamePorts, enrollmentToken: second.token,
      extra: ['--isolation', 'auto', '--game-uids', range, '--cpu-millis', '1000', '--memory-bytes', String(GiB), '--bind-address', '127.0.0.1'],
      env: { CAIRN_AGENT_CLAIMS_DIR: claims, ...env },
    });
    agents.push(agent);
    return agent;
  }

  before(async () => {
    claims = await mkdtemp(join(tmpdir(), 'cairn-claims-'));
    etc = await mkdtemp(join(tmpdir(), 'cairn-etc-'));
    secondDir = await mkdtemp(join(tmpdir(), 'cairn-agent-second-'));
    // The fleet's Agent inherits this process's environment: its claim goes to the test's directory, not the host's /run.
    process.env.CAIRN_AGENT_CLAIMS_DIR = claims;
    f = await startFleet({ agentArgs: ['--isolation', 'auto', '--game-uids', firstRange] });
    const created = await f.admin.post<EnrollmentIssued>('/nodes', { name: 'second' });
    second = { nodeId: created.body.node.id, token: created.body.enrollmentToken };
  });
  after(async () => {
    delete process.env.CAIRN_AGENT_CLAIMS_DIR;
    for (const agent of agents) await agent.kill();
    await killGames(secondDir);
    for (const ports of secondPorts) await removeGameNetworks(secondDir, ports);
    await f.dispose();
    for (const dir of [claims, etc, secondDir]) await rm(dir, { recursive: true, force: true });
  });

  it('the Node reports the task limit and its uid range in status.isolation', async () => {
    const node = await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.isolation, { what: 'the Node\'s isolation' });
    expect(node).to.deep.equal({ users: true, filesystem: true, memory: true, cpu: true, pids: true, gameUids: firstRange, disk: 'accounting', network: true });
  });

  it('a second Agent on the same range exits 2 naming the first one\'s data dir, pid and range, before it enrolls', async () => {
    const agent = await secondAgent('325000-334999');
    expect(await agent.exited).to.equal(2);
    expect(agent.stderr).to.include(`cairn-agent: --game-uids 325000-334999 overlaps ${firstRange}, the range of the Agent of data dir ${f.agentDir} (pid ${f.agent.child.pid}) on this host`);
    expect(agent.stderr).to.include('Give each Agent its own --game-uids.');
    // Refused before enrolling: the token is still good for the next try.
    await access(join(secondDir, 'credential.json')).then(() => expect.fail('enrolled'), () => undefined);
  });

  it('a range overlapping a user of the host\'s accounts is refused, naming the user and a free range', async () => {
    await writeFile(join(etc, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\nminecraft:x:335000:335000::/srv/minecraft:/bin/sh\n');
    await writeFile(join(etc, 'subuid'), 'alice:100000:65536\n');
    const agent = await secondAgent('330000-339999', { CAIRN_AGENT_ETC_DIR: etc });
    expect(await agent.exited).to.equal(2);
    expect(agent.stderr).to.include(`cairn-agent: --game-uids 330000-339999 overlaps ids this host already gives: user "minecraft" (uid 335000, ${join(etc, 'passwd')}). Give a range nobody holds, e.g. --game-uids 335001-345000.`);
  });

  it('with a range of its own it runs beside the first; killed, its stale claim does not block the next Agent on that range', async () => {
    const agent = await secondAgent('340000-349999');
    await healthy(second.nodeId);
    expect(f.agent.running).to.equal(true);
    const node = (await f.admin.get<Node>(`/nodes/${second.nodeId}`)).body;
    expect(node.status.isolation?.gameUids).to.equal('340000-349999');
    expect((await readdir(claims)).sort()).to.deep.equal([`agent-${f.agent.child.pid}.json`, `agent-${agent.child.pid}.json`].sort());
    await agent.kill('SIGKILL');
    expect(await readdir(claims)).to.include(`agent-${agent.child.pid}.json`);
    await waitFor(async () => (await f.admin.get<Node>(`/nodes/${second.nodeId}`)).body.status.connectionState !== 'HEALTHY' || undefined, { what: 'the Node to miss its Agent', timeoutMs: 60_000 });
    const next = await secondAgent('340000-349999');
    await healthy(second.nodeId);
    expect(next.running).to.equal(true);
    expect(await readdir(claims)).to.not.include(`agent-${agent.child.pid}.json`);
  });

  it('an Agent that stops releases its claim', async () => {
    const [last] = agents.slice(-1);
    await last.kill('SIGTERM');
    expect(await readdir(claims)).to.deep.equal([`agent-${f.agent.child.pid}.json`]);
  });
});
