import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnrollmentIssued, Node, ServerDetail, Team, User } from '../support/api-types.js';
import { AgentProcess } from '../support/agent-process.js';
import { adminCredentials, networkInput } from '../support/controller.js';
import { ControllerProcess } from '../support/controller-process.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import { greetingOn, pidAlive, processesIn } from '../support/game-processes.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { PortRange } from '../../src/shared/link/messages.js';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 250, memoryBytes: GiB / 8 };
/** The contract's deadline for a silent Agent (no heartbeat for 45 s), with the 5 s heartbeat interval as slack. */
const unreachableWithinMs = 45_000 + 5_000;
/** The deadline and 5 s: long enough to see the Node stay UNREACHABLE, not HEALTHY again, while stopped. */
const stopSeconds = 55;


interface AgentHost {
  nodeId: string;
  dir: string;
  gamePorts: PortRange;
  agent: AgentProcess;
}

const agentArgs = ['--cpu-millis', '4000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];

/**
 * Faults against real processes: the Controller as a child process on the embedded store (SIGKILL
 * leaves its files as a crash would), two real Agents, simcraft games under their supervisors.
 * The tests share one fleet and run in order: the first leaves `alpha` (Node A) and `charlie`
 * (Node B) running, which the Agent faults then use.
 */
describe('faults: Controller SIGKILL, Agent SIGKILL and SIGSTOP (real processes)', function () {
  this.timeout(240_000);
  let dataDir: string;
  let controller: ControllerProcess;
  let cookie: string;
  let admin: ApiClient;
  let a: AgentHost;
  let b: AgentHost;
  const ids: Record<'alpha' | 'charlie', string> = { alpha: '', charlie: '' };
  const hosts: AgentHost[] = [];

  const startAgent = (host: Omit<AgentHost, 'agent'>, enrollmentToken?: string) =>
    AgentProcess.start({ grpcPort: controller.grpcPort, dataDir: host.dir, gamePorts: host.gamePorts, enrollmentToken, extra: agentArgs });
  const nodeOf = async (id: string) => (await admin.get<Node>(`/nodes/${id}`)).body;
  // Generous: an Agent compiles its TypeScript through tsx first, slow on a loaded 2-core machine.
  const healthy = (nodeId: string, timeoutMs = 60_000) =>
    waitFor(async () => ((await nodeOf(nodeId)).status.connectionState === 'HEALTHY' ? true : undefined), { timeoutMs, what: `Node ${nodeId} HEALTHY` });
  const serverOf = async (id: string) => (await admin.get<ServerDetail>(`/servers/${id}`)).body;
  const converged = (id: string, desired: 'RUNNING' | 'STOPPED', timeoutMs = 45_000) =>
    waitForServer(admin, id, (s) => s.desiredState === desired && s.status.runtimeState === desired && s.convergence === 'CONVERGED' && s.observedGeneration === s.generation, `${id} ${desired} and CONVERGED`, timeoutMs);
  const rootOf = (host: AgentHost, id: string) => join(host.dir, 'servers', id, 'root');
  const gamePidOf = async (host: AgentHost, id: string) =>
    (JSON.parse(await readFile(join(host.dir, 'servers', id, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;

  async function enroll(name: string): Promise<AgentHost> {
    const issued = (await admin.post<EnrollmentIssued>('/nodes', { name })).body;
    const dir = await mkdtemp(join(tmpdir(), 'cairn-faults-agent-'));
    const host = { nodeId: issued.node.id, dir, gamePorts: await privateGamePorts() };
    const started = { ...host, agent: startAgent(host, issued.enrollmentToken) };
    hosts.push(started);
    return started;
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-faults-'));
    controller = await ControllerProcess.start(dataDir);
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await controller.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
    expect(setup.status, setup.text).to.equal(201);
    cookie = sessionCookieFrom(setup);
    admin = controller.api.withCookie(cookie);
    a = await enroll('node-a');
    b = await enroll('node-b');
    await Promise.all([healthy(a.nodeId), healthy(b.nodeId)]);
  });
  after(async () => {
    for (const host of hosts) {
      host.agent.child.kill('SIGCONT');
      await host.agent.kill();
      await killGames(host.dir);
      await rm(host.dir, { recursive: true, force: true });
    }
    // Undefined only when `before` failed first.
    await (controller as ControllerProcess | undefined)?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a Controller SIGKILLed right after each 2xx keeps what it acknowledged, and everything converges', async () => {
    const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    const input = (name: string, host: AgentHost) => ({ name, teamId, nodeId: host.nodeId, software: simcraft, resources: small });
    const charlie = await admin.post<ServerDetail>('/servers', input('charlie', b));
    expect(charlie.status, charlie.text).to.equal(201);
    ids.charlie = charlie.body.id;
    /**
     * Sends one request, SIGKILLs the Controller the moment the 2xx is in and starts it again on the
     * same data dir and link port; the Agents reconnect by themselves meanwhile. What the 2xx said
     * must then still hold: same server, placement, desired state and generation.
     */
    const acknowledgedThenKilled = async (path: string, body?: unknown) => {
      const res = await admin.post<ServerDetail>(path, body);
      expect(res.status, `${path}: ${res.text}`).to.be.within(200, 299);
      await controller.kill('SIGKILL');
      controller = await ControllerProcess.start(dataDir, controller.grpcPort);
      admin = controller.api.withCookie(cookie);
      const acked = res.body;
      const after = await serverOf(acked.id);
      expect({ name: after.name, nodeId: after.nodeId, gamePort: after.gamePort, desiredState: after.desiredState, generation: after.generation }, `${path} after the SIGKILL`)
        .to.deep.equal({ name: acked.name, nodeId: acked.nodeId, gamePort: acked.gamePort, desiredState: acked.desiredState, generation: acked.generation });
      return acked;
    };
    const ready = (id: string) => waitForServer(admin, id, (s) => s.phase === 'READY', `${id} READY`, 60_000);

    ids.alpha = (await acknowledgedThenKilled('/servers', input('alpha', a))).id;
    // Power actions need READY: the install the crash interrupted must have resumed.
    await Promise.all([ready(ids.alpha), ready(ids.charlie)]);
    await acknowledgedThenKilled(`/servers/${ids.alpha}/start`);
    await acknowledgedThenKilled(`/servers/${ids.charlie}/start`);
    await acknowledgedThenKilled(`/servers/${ids.alpha}/restart`);

    await Promise.all([healthy(a.nodeId), healthy(b.nodeId)]);
    for (const [name, host] of [['alpha', a], ['charlie', b]] as const) {
      const s = await converged(ids[name], 'RUNNING');
      expect(s.phase, name).to.equal('READY');
      expect(s.status.lastCrash, `${name}: no crash counted`).to.equal(undefined);
      expect(await processesIn(rootOf(host, s.id)), `${name}: one game`).to.have.length(1);
      expect(await greetingOn(s.gamePort!), `${name} answers on its port`).to.match(new RegExp(` on port ${s.gamePort}:`));
    }
  });

  describe(`while Node B's Agent is SIGSTOPped for ${stopSeconds} s`, () => {
    let stoppedAt = 0;
    /** Node B's connection state and charlie's convergence, sampled all along the stop. */
    const seen: { atMs: number; node: string; charlie: string }[] = [];
    let sampling: Promise<void> | undefined;
    let charliePid = 0;

    before(async () => {
      charliePid = await gamePidOf(b, ids.charlie);
      b.agent.child.kill('SIGSTOP');
      stoppedAt = Date.now();
      sampling = (async () => {
        while (Date.now() - stoppedAt < stopSeconds * 1000) {
          const [node, charlie] = await Promise.all([nodeOf(b.nodeId), serverOf(ids.charlie)]);
          seen.push({ atMs: Date.now() - stoppedAt, node: node.status.connectionState, charlie: charlie.convergence });
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();
    });
    after(() => {
      b.agent.child.kill('SIGCONT');
    });

    it('Agent A SIGKILLed while its game runs: the restarted Agent adopts the same game, never restarted, its port still open', async () => {
      const before = await serverOf(ids.alpha);
      const pid = await gamePidOf(a, ids.alpha);
      await a.agent.kill('SIGKILL');
      expect(pidAlive(pid), 'the game outlives its Agent').to.equal(true);
      expect(await greetingOn(before.gamePort!), 'players still reach the game with no Agent').to.match(new RegExp(` on port ${before.gamePort}:`));
      a.agent = startAgent(a);
      await healthy(a.nodeId);
      const after = await converged(ids.alpha, 'RUNNING');
      expect(await gamePidOf(a, ids.alpha), 'the supervisor tracks the same game').to.equal(pid);
      expect(await processesIn(rootOf(a, ids.alpha)), 'one game, the same one').to.deep.equal([pid]);
      expect({ generation: after.generation, gamePort: after.gamePort, lastCrash: after.status.lastCrash }).to.deep.equal({ generation: before.generation, gamePort: before.gamePort, lastCrash: undefined });
      expect(await greetingOn(after.gamePort!)).to.match(new RegExp(` on port ${after.gamePort}:`));
    });

    it(`Node B goes UNREACHABLE by the heartbeat deadline, loses no game, and after SIGCONT is HEALTHY and converged again`, async () => {
      const charlie = await serverOf(ids.charlie);
      const unreachable = await waitFor(() => seen.find((s) => s.node === 'UNREACHABLE'), { timeoutMs: unreachableWithinMs + 5_000, intervalMs: 250, what: 'Node B UNREACHABLE' });
      expect(unreachable.atMs, 'UNREACHABLE within 45 s of the last heartbeat').to.be.below(unreachableWithinMs);
      const shown = await nodeOf(b.nodeId);
      expect(shown.acceptsPlacements).to.equal(false);
      expect(shown.conditions.map((c) => c.reason)).to.include('NODE_UNREACHABLE');
      expect((await serverOf(ids.charlie)).convergence, 'a server on an unreachable Node').to.equal('UNKNOWN');
      expect(pidAlive(charliePid), 'the game runs on while its Agent is stopped').to.equal(true);
      expect(await greetingOn(charlie.gamePort!), 'players still reach it').to.match(new RegExp(` on port ${charlie.gamePort}:`));

      await sampling;
      expect(seen.filter((s) => s.node === 'HEALTHY').every((s) => s.atMs < unreachable.atMs), `never HEALTHY again while stopped: ${JSON.stringify(seen)}`).to.equal(true);
      b.agent.child.kill('SIGCONT');
      const resumedAt = Date.now();
      await healthy(b.nodeId);
      const back = await converged(ids.charlie, 'RUNNING');
      const node = await nodeOf(b.nodeId);
      expect({ conditions: node.conditions, acceptsPlacements: node.acceptsPlacements }).to.deep.equal({ conditions: [], acceptsPlacements: true });
      expect({ generation: back.generation, gamePort: back.gamePort, lastCrash: back.status.lastCrash }).to.deep.equal({ generation: charlie.generation, gamePort: charlie.gamePort, lastCrash: undefined });
      expect(await gamePidOf(b, ids.charlie), 'the same game').to.equal(charliePid);
      expect(await processesIn(rootOf(b, ids.charlie))).to.deep.equal([charliePid]);
      const states = [...new Set(seen.map((s) => s.node))].join(' → ');
      console.log(`    SIGSTOP ${stopSeconds} s: Node B ${states}; UNREACHABLE at ${(unreachable.atMs / 1000).toFixed(1)} s; HEALTHY and converged ${((Date.now() - resumedAt) / 1000).toFixed(1)} s after SIGCONT`);
    });
  });
});
