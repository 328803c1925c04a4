import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultGamePorts, gamePortsRule, parseGamePorts } from '../shared/game-ports.js';
import type { PortRange } from '../shared/link/messages.js';

export interface AgentConfig {
  /** HOST:PORT of the Controller's Agent link. */
  controller: string;
  dataDir: string;
  enrollmentToken?: string;
  /** CA file to verify the Controller's TLS certificate; without it the link is plaintext. */
  controllerCa?: string;
  /** Overrides of what the Agent reports as allocatable. */
  cpuMillis?: number;
  memoryBytes?: number;
  diskBytes?: number;
  /** The Java the real templates (paper, velocity, vanilla) run with. */
  java: string;
  /** The address game servers bind their ports to. */
  bindAddress: string;
  /** First delay before an automatic restart after a crash; doubles per crash, capped at 30 s. */
  restartBackoffMs: number;
  /** The host ports the Controller may give this Node's game servers. */
  gamePorts: PortRange;
}

export class AgentConfigError extends Error {}

const flags = {
  controller: { env: 'CAIRN_CONTROLLER' },
  'data-dir': { env: 'CAIRN_AGENT_DATA_DIR' },
  'enrollment-token': { env: 'CAIRN_ENROLLMENT_TOKEN' },
  'controller-ca': { env: 'CAIRN_CONTROLLER_CA' },
  'cpu-millis': { env: 'CAIRN_AGENT_CPU_MILLIS' },
  'memory-bytes': { env: 'CAIRN_AGENT_MEMORY_BYTES' },
  'disk-bytes': { env: 'CAIRN_AGENT_DISK_BYTES' },
  java: { env: 'CAIRN_JAVA' },
  'bind-address': { env: 'CAIRN_BIND_ADDRESS' },
  'restart-backoff-ms': { env: 'CAIRN_RESTART_BACKOFF_MS' },
  'game-ports': { env: 'CAIRN_GAME_PORTS' },
} as const;

function amount(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new AgentConfigError(`--${name} must be a whole number of at least 0, got ${JSON.stringify(raw)}`);
  return n;
}

function gamePorts(raw: string | undefined): PortRange {
  if (raw === undefined) return defaultGamePorts;
  const range = parseGamePorts(raw);
  if (!range) throw new AgentConfigError(`--game-ports must be ${gamePortsRule}, got ${JSON.stringify(raw)}`);
  return range;
}

/**
 * `cairn-agent --controller HOST:PORT --data-dir DIR [--enrollment-token T] [--controller-ca FILE]
 * [--cpu-millis N] [--memory-bytes N] [--disk-bytes N] [--java PATH] [--bind-address ADDR]
 * [--restart-backoff-ms N] [--game-ports FIRST-LAST]`. Flags win over environment variables
 * (the token may come from CAIRN_ENROLLMENT_TOKEN so it stays out of the process list).
 */
export function parseAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.keys(flags).map((k) => [k, { type: 'string' as const }])),
    strict: true,
  });
  const get = (name: keyof typeof flags): string | undefined => {
    const v = (values as Record<string, string | undefined>)[name] ?? env[flags[name].env];
    return v === undefined || v === '' ? undefined : v;
  };
  const controller = get('controller');
  if (!controller || !/^.+:\d{1,5}$/.test(controller)) throw new AgentConfigError('--controller HOST:PORT is required');
  const dataDir = get('data-dir');
  if (!dataDir) throw new AgentConfigError('--data-dir DIR is required');
  return {
    controller,
    dataDir: resolve(dataDir),
    enrollmentToken: get('enrollment-token'),
    controllerCa: get('controller-ca'),
    cpuMillis: amount('cpu-millis', get('cpu-millis')),
    memoryBytes: amount('memory-bytes', get('memory-bytes')),
    diskBytes: amount('disk-bytes', get('disk-bytes')),
    java: get('java') ?? 'java',
    bindAddress: get('bind-address') ?? '0.0.0.0',
    restartBackoffMs: amount('restart-backoff-ms', get('restart-backoff-ms')) ?? 1000,
    gamePorts: gamePorts(get('game-ports')),
  };
}
