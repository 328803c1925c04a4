/**
 * One of the fleet bench's Agent processes: real Agents (src/agent/agent.ts), one per Node token the
 * parent sends, enrolled `batch` at a time. Over IPC it reports how many are up, every token the
 * Controller refused (a fallback: a retry after a lost Enroll answer carries its attempt id and is
 * answered again, so none should be; the parent would issue another), and every desired change
 * an Agent receives (server, generation, wall-clock time in ms: same machine, same clock as the
 * parent's).
 */
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { EnrollmentRefused } from '../../src/agent/link/enroll.js';
import { defaultGameUids } from '../../src/agent/isolation/game-uids.js';
import { UsageSampler } from '../../src/agent/status/host-usage.js';
import { silentLogger } from '../../src/shared/logger.js';
import { fleetGamePorts } from './fleet-seed.js';

export interface AgentsStart { kind: 'start'; controller: string; dataDir: string; tokens: string[]; batch: number }
export interface AgentsRetry { kind: 'retry'; index: number; token: string }
/** Asks for the event-loop delay since the last ask (the process's own lateness adds to every arrival it reports). */
export interface AgentsLag { kind: 'lag' }
export type AgentsReport =
  | { kind: 'enrolled'; count: number }
  | { kind: 'refused'; index: number }
  | { kind: 'arrivals'; arrivals: [serverId: string, generation: number, atMs: number][] }
  | { kind: 'lag'; p99Ms: number; maxMs: number; gcMaxMs: number };

const agents: RunningAgent[] = [];
let settings: Omit<AgentsStart, 'kind' | 'tokens'>;
let arrivals: [string, number, number][] = [];
const send = (report: AgentsReport) => process.send!(report);
const wallNow = () => performance.timeOrigin + performance.now();

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let gcMaxMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
}).observe({ entryTypes: ['gc'] });

/**
 * One sample of the host a second for all of this process's Agents: they share its cores and its
 * disk, and each sampling them at every heartbeat (os.cpus() and statfs 625 times per 5 s) was a
 * quarter of the process's CPU, work that Agents on hosts of their own never share.
 */
const hostUsage = (() => {
  let sampler: UsageSampler | undefined;
  let last: { atMs: number; sample: ReturnType<UsageSampler['sample']> } | undefined;
  return {
    sample() {
      sampler ??= new UsageSampler(settings.dataDir);
      if (!last || performance.now() - last.atMs >= 1000) last = { atMs: performance.now(), sample: sampler.sample() };
      return last.sample;
    },
  };
})();

// Batched per 20 ms, so IPC stays small next to the Agents' own work.
setInterval(() => {
  if (arrivals.length === 0) return;
  send({ kind: 'arrivals', arrivals });
  arrivals = [];
}, 20).unref();

/** One Agent up, its desired changes reported; a refused token is reported rather than fatal. */
async function startAgent(index: number, token: string): Promise<void> {
  let agent: RunningAgent;
  try {
    agent = await runAgent({
      controller: settings.controller, dataDir: join(settings.dataDir, `agent-${index}`), enrollmentToken: token,
      cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, diskBytes: 50 * 2 ** 30, javas: [], bindAddress: '127.0.0.1', restartBackoffMs: 1000,
      gamePorts: fleetGamePorts, isolation: 'off', gameUids: defaultGameUids, gameEgressAllow: [], statusIntervalMs: 10_000,
    }, silentLogger, { hostUsage });
  } catch (err) {
    if (!(err instanceof EnrollmentRefused)) throw err;
    send({ kind: 'refused', index });
    return;
  }
  agent.link.onDesiredChange((serverId, server) => {
    if (server) arrivals.push([serverId, server.generation, wallNow()]);
  });
  agents.push(agent);
  send({ kind: 'enrolled', count: agents.length });
}

async function start({ tokens, ...given }: AgentsStart): Promise<void> {
  settings = given;
  for (let i = 0; i < tokens.length; i += settings.batch) {
    await Promise.all(tokens.slice(i, i + settings.batch).map((token, j) => startAgent(i + j, token)));
  }
}

const fail = (err: unknown) => {
  console.error(err);
  process.exit(1);
};

process.on('message', (message: AgentsStart | AgentsRetry | AgentsLag | { kind: 'stop' }) => {
  if (message.kind === 'start') start(message).catch(fail);
  else if (message.kind === 'lag') {
    send({ kind: 'lag', p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6, gcMaxMs });
    delay.reset();
    gcMaxMs = 0;
  }
  else if (message.kind === 'retry') startAgent(message.index, message.token).catch(fail);
  else void Promise.all(agents.map((agent) => agent.stop())).finally(() => process.exit(0));
});
