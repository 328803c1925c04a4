/**
 * One of the fleet bench's Agent processes: real Agents (src/agent/agent.ts), one per Node token the
 * parent sends, enrolled 100 at a time. Over IPC it reports how many are up, and every desired
 * change an Agent receives (server, generation, wall-clock time in ms: same machine, same clock as
 * the parent's).
 */
import { join } from 'node:path';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { silentLogger } from '../../src/shared/logger.js';
import { fleetGamePorts } from './fleet-seed.js';

export interface AgentsStart { kind: 'start'; controller: string; dataDir: string; tokens: string[] }
export type AgentsReport =
  | { kind: 'enrolled'; count: number }
  | { kind: 'arrivals'; arrivals: [serverId: string, generation: number, atMs: number][] };

const batchSize = 100;
const agents: RunningAgent[] = [];
let arrivals: [string, number, number][] = [];
const send = (report: AgentsReport) => process.send!(report);
const wallNow = () => performance.timeOrigin + performance.now();

// Batched per 20 ms, so IPC stays small next to the Agents' own work.
setInterval(() => {
  if (arrivals.length === 0) return;
  send({ kind: 'arrivals', arrivals });
  arrivals = [];
}, 20).unref();

async function start({ controller, dataDir, tokens }: AgentsStart): Promise<void> {
  for (let i = 0; i < tokens.length; i += batchSize) {
    const batch = await Promise.all(tokens.slice(i, i + batchSize).map((token, j) => runAgent({
      controller, dataDir: join(dataDir, `agent-${i + j}`), enrollmentToken: token,
      cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, diskBytes: 50 * 2 ** 30, java: 'java', bindAddress: '127.0.0.1', restartBackoffMs: 1000,
      gamePorts: fleetGamePorts,
    }, silentLogger)));
    for (const agent of batch) {
      agent.link.onDesiredChange((serverId, server) => {
        if (server) arrivals.push([serverId, server.generation, wallNow()]);
      });
    }
    agents.push(...batch);
    send({ kind: 'enrolled', count: agents.length });
  }
}

process.on('message', (message: AgentsStart | { kind: 'stop' }) => {
  if (message.kind === 'start') {
    start(message).catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  } else {
    void Promise.all(agents.map((agent) => agent.stop())).finally(() => process.exit(0));
  }
});
