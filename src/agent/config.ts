import { resolve } from 'node:path';
import { logFormats, type LogFormat } from '../shared/logger.js';
import { defaultGamePorts, gamePortsRule, parseGamePorts } from '../shared/game-ports.js';
import { defaultGameUids, gameUidsRule, parseGameUids, type UidRange } from './isolation/game-uids.js';
import { isolationModes, type IsolationMode } from './isolation/isolation-mode.js';
import { egressAllowRule, parseEgressRule, type EgressRule } from '../shared/egress-rule.js';
import type { PortRange } from '../shared/link/messages.js';
import type { FlagSpec } from '../shared/program-args.js';
import { programConfig, ProgramConfigError, wholeNumber, type ProgramSettings } from '../shared/program-config.js';

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
  /** `--java` paths in the order given (launchers or JAVA_HOME directories); more are found on the host. */
  javas: string[];
  /** The address game servers bind their ports to. */
  bindAddress: string;
  /** First delay before an automatic restart after a crash; doubles per crash, capped at 30 s. */
  restartBackoffMs: number;
  /** The host ports the Controller may give this Node's game servers. */
  gamePorts: PortRange;
  /** How far games are boxed (contract: "Containment"). */
  isolation: IsolationMode;
  /** The uids (and gids) games get, one per server. */
  gameUids: UidRange;
  /** What a game in its own network may reach besides the internet: the Node's networks stay closed to it otherwise. */
  gameEgressAllow: EgressRule[];
  /** How often each running server's usage and players are sampled, reported and kept in its history. */
  statusIntervalMs: number;
}

export class AgentConfigError extends ProgramConfigError {}

const logFormatValue = (raw: string): LogFormat | undefined => (logFormats as readonly string[]).includes(raw) ? (raw as LogFormat) : undefined;

const flags = {
  'log-format': { value: 'text|json', env: 'CAIRN_LOG_FORMAT', help: 'logs on stderr as text (the default at a terminal) or JSON lines (otherwise)' },
  config: { value: 'FILE', env: 'CAIRN_AGENT_CONFIG', help: 'a YAML file of settings whose keys are these long flags (data-dir: /var/lib/cairn-agent); flags and variables win over it' },
  controller: { value: 'HOST:PORT', env: 'CAIRN_CONTROLLER', help: 'the Controller\'s Agent link (required)' },
  'data-dir': { value: 'DIR', env: 'CAIRN_AGENT_DATA_DIR', help: 'the Agent\'s credential, servers and caches (required)' },
  'enrollment-token': { value: 'T', env: 'CAIRN_ENROLLMENT_TOKEN', help: 'the one-time token of `cairn create node`; needed the first time only' },
  'controller-ca': { value: 'FILE', env: 'CAIRN_CONTROLLER_CA', help: 'CA (PEM) that verifies the Controller\'s TLS certificate; without it the link is plaintext' },
  'controller-tls-name': { value: 'NAME', env: 'CAIRN_CONTROLLER_TLS_NAME', help: 'the name the Controller\'s certificate is checked against (default: the host of --controller)' },
  'cpu-millis': { value: 'N', env: 'CAIRN_AGENT_CPU_MILLIS', help: 'allocatable CPU in millicores (default: what the host has)' },
  'memory-bytes': { value: 'N', env: 'CAIRN_AGENT_MEMORY_BYTES', help: 'allocatable memory in bytes (default: what the host has)' },
  'disk-bytes': { value: 'N', env: 'CAIRN_AGENT_DISK_BYTES', help: 'allocatable disk in bytes (default: what the data dir\'s disk has)' },
  java: { value: 'PATH', env: 'CAIRN_JAVA', multiple: true, help: 'a Java for paper, velocity and vanilla: a java launcher or a JAVA_HOME directory; repeatable (env: comma-separated); JAVA_HOME, /usr/lib/jvm/* and java on PATH are found too' },
  'bind-address': { value: 'ADDR', env: 'CAIRN_BIND_ADDRESS', help: 'the address game servers bind their ports to (default 0.0.0.0)' },
  'restart-backoff-ms': { value: 'N', env: 'CAIRN_RESTART_BACKOFF_MS', help: 'first delay before restarting a crashed server; doubles per crash (default 1000)' },
  'game-ports': { value: 'FIRST-LAST', env: 'CAIRN_GAME_PORTS', help: 'the host ports this Node offers game servers (default 25565-26564)' },
  isolation: { value: 'MODE', env: 'CAIRN_ISOLATION', help: 'auto (box games as far as the host allows), required (start no game unboxed) or off (default auto)' },
  'game-uids': { value: 'FIRST-LAST', env: 'CAIRN_GAME_UIDS', help: 'the uids and gids games run as, one per server (default 200000-299999); none may belong to an account of the host (passwd, group, subuid, subgid) or to another Agent on it' },
  'game-egress-allow': { value: 'CIDR[:PORT]', env: 'CAIRN_GAME_EGRESS_ALLOW', multiple: true, help: 'an address block (and port) games may connect to although it is the Node\'s own, link-local or private (where games have their own network); repeatable (env: comma-separated)' },
  'status-interval-ms': { value: 'N', env: 'CAIRN_STATUS_INTERVAL_MS', help: 'how often each running server\'s CPU, memory and players are sampled and reported (default 10000, at least 1000); its history keeps 360 samples and 1,440 of six each' },
} as const satisfies Record<string, FlagSpec>;

/** Whole numbers of at least 0 (the allocatable amounts, the restart backoff). */
const amountRule = 'a whole number of at least 0';
const amount = wholeNumber(0);

/**
 * Flags win over environment variables (the token may come from CAIRN_ENROLLMENT_TOKEN so it stays
 * out of the process list), which win over the --config file.
 */
function configFrom(settings: ProgramSettings<keyof typeof flags>): AgentConfig {
  const { get, parsed } = settings;
  // The logger took --log-format before the rest of the command line (shared/logger.ts); a wrong value is refused here.
  parsed('log-format', 'text or json', logFormatValue);
  const controller = get('controller');
  if (!controller || !/^.+:\d{1,5}$/.test(controller)) throw new AgentConfigError('--controller HOST:PORT is required');
  const dataDir = get('data-dir');
  if (!dataDir) throw new AgentConfigError('--data-dir DIR is required');
  const controllerCa = get('controller-ca');
  if (get('controller-tls-name') !== undefined && controllerCa === undefined) throw new AgentConfigError('--controller-tls-name goes with --controller-ca');
  return {
    controller,
    dataDir: resolve(dataDir),
    enrollmentToken: get('enrollment-token'),
    controllerCa: controllerCa === undefined ? undefined : resolve(controllerCa),
    controllerTlsName: get('controller-tls-name'),
    cpuMillis: parsed('cpu-millis', amountRule, amount),
    memoryBytes: parsed('memory-bytes', amountRule, amount),
    diskBytes: parsed('disk-bytes', amountRule, amount),
    javas: (get('java') ?? '').split(',').map((p) => p.trim()).filter((p) => p !== ''),
    bindAddress: get('bind-address') ?? '0.0.0.0',
    restartBackoffMs: parsed('restart-backoff-ms', amountRule, amount) ?? 1000,
    gamePorts: parsed('game-ports', gamePortsRule, parseGamePorts) ?? defaultGamePorts,
    isolation: parsed('isolation', isolationModes.join(', '), (raw) => isolationModes.find((m) => m === raw)) ?? 'auto',
    gameUids: parsed('game-uids', gameUidsRule, parseGameUids) ?? defaultGameUids,
    gameEgressAllow: egressAllowOf(get('game-egress-allow')),
    statusIntervalMs: parsed('status-interval-ms', 'a whole number of at least 1000', wholeNumber(1000)) ?? 10_000,
  };
}

function egressAllowOf(raw: string | undefined): EgressRule[] {
  return (raw ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '').map((r) => {
    const rule = parseEgressRule(r);
    if (!rule) throw new AgentConfigError(`--game-egress-allow ${r}: expected ${egressAllowRule}`);
    return rule;
  });
}

/** `agentHelp`: the --help text; `parseAgentCommandLine`: --help, --version or the configuration to run with; `parseAgentConfig`: the configuration of a command line that runs the Agent. */
export const { help: agentHelp, commandLine: parseAgentCommandLine, config: parseAgentConfig } = programConfig({
  usage: 'cairn-agent --controller HOST:PORT --data-dir DIR [options]',
  summary: 'The Cairn Agent: runs the game servers of one Node for its Controller. Flags win over environment variables, which win over --config.',
  flags,
  runs: 'the Agent',
  error: AgentConfigError,
  build: configFrom,
});
