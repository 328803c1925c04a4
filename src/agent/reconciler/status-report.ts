import type { LastCrash, ServerStatus } from '../../shared/link/messages.js';
import { oomKilledReason, type CrashRecord } from './crash-record.js';
import { runtimeStateOf, type AgentServerState } from './runtime-state-of.js';
import type { ServerMachineContext } from './server-machine-context.js';
import type { AgentCondition } from './start-refusal.js';

/** What the runner knows beside its machine: the game's process and samples, and the sleeper's port. */
export interface RunnerFacts {
  /** Since when the server's sleeping port has answered, for a server the Agent found asleep. */
  foundAsleep: string | undefined;
  usage: ServerStatus['usage'];
  players: ServerStatus['players'] | undefined;
  startedAt: string;
  pid: number;
  /** Why the game's last exit could not be recorded on disk. */
  recordFailure: AgentCondition | undefined;
}

/** The server's status as the Controller hears it, from its machine's state and what the runner knows. */
export function statusReport(state: AgentServerState, context: ServerMachineContext, facts: RunnerFacts): ServerStatus {
  const { foundAsleep } = facts;
  const runtime = foundAsleep ? 'STOPPED' : runtimeStateOf(state, context);
  const live = state === 'running' || state === 'starting' || state === 'launching';
  return {
    serverId: context.desired.serverId,
    observedGeneration: context.observedGeneration,
    runtimeState: runtime ? `RUNTIME_STATE_${runtime}` : 'RUNTIME_STATE_UNSPECIFIED',
    installed: foundAsleep !== undefined || !['probing', 'installing', 'installFailed'].includes(state),
    usage: live ? facts.usage : { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 },
    conditions: facts.recordFailure ? [...context.conditions, facts.recordFailure] : context.conditions,
    ports: context.desired.gamePort ? [{ name: 'game', protocol: 'TCP', hostPort: context.desired.gamePort }] : [],
    startedAt: state === 'running' ? facts.startedAt : '',
    removed: state === 'removed',
    restarting: state === 'crashed' || state === 'backoff',
    installError: state === 'installFailed' ? context.installError ?? 'install failed' : '',
    startedInNetwork: live && context.applied?.inNetwork === true,
    lastCrash: lastCrashOf(context.desired.serverId, context.lastCrash, context.restarts),
    portInUse: context.portInUse ?? 0,
    pid: live ? facts.pid : 0,
    players: state === 'running' ? facts.players ?? null : null,
    sleeping: state === 'asleep' && context.asleep ? { since: context.asleep.since } : foundAsleep ? { since: foundAsleep } : null,
    lastWake: context.lastWake ?? null,
  };
}

/** A kept crash as the server's status carries it to the Controller (lines numbered oldest first). */
export function lastCrashOf(serverId: string, crash: CrashRecord | undefined, restarts: number): LastCrash | null {
  if (!crash) return null;
  return {
    at: new Date(crash.at).toISOString(),
    exitCode: crash.code ?? 0,
    hasExitCode: crash.code !== null,
    signal: crash.signal ?? '',
    lastLines: crash.lastLines.map((line, seq) => ({ serverId, text: line.text, atUnixMs: line.at, truncated: false, seq })),
    reason: crash.oomKilledAt === undefined ? '' : oomKilledReason,
    restarts,
  };
}
