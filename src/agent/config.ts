import { resolve } from 'node:path';
import { defaultGamePorts, gamePortsRule, parseGamePorts } from '../shared/game-ports.js';
import type { PortRange } from '../shared/link/messages.js';
import { parseProgramArgs, programHelp, type FlagSpec } from '../shared/program-args.js';
import { programSettings } from '../shared/settings.js';

export interface AgentConfig {
  /** HOST:PORT of the Controller's Agent link. */
  controller: string;
  dataDir: string;
  enrollmentToken?: string;
  /** CA file to verify the Controller's TLS certificate; without it the link is plaintext. */
  controllerCa?: string;
  /** The name the Controller's certificate must carry, when it is not the host of `controller`. */
  controllerTlsName?: string;
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
  config: { value: 'FILE', env: 'CAIRN_AGENT_CONFIG', help: 'a YAML file of settings whose keys are these long flags (data-dir: /var/lib/cairn-agent); flags and variables win over it' },
  controller: { value: 'HOST:PORT', env: 'CAIRN_CONTROLLER', help: 'the Controller\'s Agent link (required)' },
  'data-dir': { value: 'DIR', env: 'CAIRN_AGENT_DATA_DIR', help: 'the Agent\'s credential, servers and caches (required)' },
  'enrollment-token': { value: 'T', env: 'CAIRN_ENROLLMENT_TOKEN', help: 'the one-time token of `cairn create node`; needed the first time only' },
  'controller-ca': { value: 'FILE', env: 'CAIRN_CONTROLLER_CA', help: 'CA (PEM) that verifies the Controller\'s TLS certificate; without it the link is plaintext' },
  'controller-tls-name': { value: 'NAME', env: 'CAIRN_CONTROLLER_TLS_NAME', help: 'the name the Controller\'s certificate is checked against (default: the host of --controller)' },
  'cpu-millis': { value: 'N', env: 'CAIRN_AGENT_CPU_MILLIS', help: 'allocatable CPU in millicores (default: what the host has)' },
  'memory-bytes': { value: 'N', env: 'CAIRN_AGENT_MEMORY_BYTES', help: 'allocatable memory in bytes (default: what the host has)' },
  'disk-bytes': { value: 'N', env: 'CAIRN_AGENT_DISK_BYTES', help: 'allocatable disk in bytes (default: what the data dir\'s disk has)' },
  java: { value: 'PATH', env: 'CAIRN_JAVA', help: 'the Java that runs paper, velocity and vanilla (default java)' },
  'bind-address': { value: 'ADDR', env: 'CAIRN_BIND_ADDRESS', help: 'the address game servers bind their ports to (default 0.0.0.0)' },
  'restart-backoff-ms': { value: 'N', env: 'CAIRN_RESTART_BACKOFF_MS', help: 'first delay before restarting a crashed server; doubles per crash (default 1000)' },
  'game-ports': { value: 'FIRST-LAST', env: 'CAIRN_GAME_PORTS', help: 'the host ports this Node offers game servers (default 25565-26564)' },
} as const satisfies Record<string, FlagSpec>;

export const agentHelp = programHelp('cairn-agent --controller HOST:PORT --data-dir DIR [options]', 'The Cairn Agent: runs the game servers of one Node for its Controller. Flags win over environment variables, which win over --config.', flags);

/** `--help`, `--version`, or the configuration to run with. */
export function parseAgentCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): { action: 'help' | 'version' } | { action: 'run'; config: AgentConfig } {
  const args = parseProgramArgs(argv, flags);
  return args.action === 'run' ? { action: 'run', config: configFrom(args.values, env) } : args;
}

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
 * The configuration of a command line that runs the Agent. Flags win over environment variables
 * (the token may come from CAIRN_ENROLLMENT_TOKEN so it stays out of the process list).
 */
export function parseAgentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const args = parseAgentCommandLine(argv, env);
  if (args.action !== 'run') throw new AgentConfigError(`--${args.action} prints and exits; it does not run the Agent`);
  return args.config;
}

function configFrom(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): AgentConfig {
  const settings = programSettings(values, env, flags, 'config');
  const get = (name: keyof typeof flags) => settings.get(name);
  const controller = get('controller');
  if (!controller || !/^.+:\d{1,5}$/.test(controller)) throw new AgentConfigError('--controller HOST:PORT is required');
  const dataDir = get('data-dir');
  if (!dataDir) throw new AgentConfigError('--data-dir DIR is required');
  if (get('controller-tls-name') !== undefined && get('controller-ca') === undefined) throw new AgentConfigError('--controller-tls-name goes with --controller-ca');
  return {
    controller,
    dataDir: resolve(dataDir),
    enrollmentToken: get('enrollment-token'),
    controllerCa: get('controller-ca') === undefined ? undefined : resolve(get('controller-ca')!),
    controllerTlsName: get('controller-tls-name'),
    cpuMillis: amount('cpu-millis', get('cpu-millis')),
    memoryBytes: amount('memory-bytes', get('memory-bytes')),
    diskBytes: amount('disk-bytes', get('disk-bytes')),
    java: get('java') ?? 'java',
    bindAddress: get('bind-address') ?? '0.0.0.0',
    restartBackoffMs: amount('restart-backoff-ms', get('restart-backoff-ms')) ?? 1000,
    gamePorts: gamePorts(get('game-ports')),
  };
}
