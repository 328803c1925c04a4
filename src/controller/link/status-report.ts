import type { LastCrash as LastCrashMessage, ServerStatus } from '../../shared/link/messages.js';
import type { LastCrash } from '../domain/last-crash.js';
import type { ServerReport } from '../domain/server-report.js';
import type { ServerRuntimeState } from '../domain/server-spec.js';

/** A server's status message as the services read it: the link publishes reports, never the wire's shape. */
export function fromLinkStatus(status: ServerStatus): ServerReport {
  const runtime = status.runtimeState.replace('RUNTIME_STATE_', '');
  return {
    serverId: status.serverId,
    observedGeneration: status.observedGeneration,
    ...(runtime !== 'UNSPECIFIED' ? { runtimeState: runtime as ServerRuntimeState } : {}),
    installed: status.installed,
    ...(status.installError ? { installError: status.installError } : {}),
    removed: status.removed,
    restarting: status.restarting,
    startedInNetwork: status.startedInNetwork,
    usage: {
      cpuMillis: status.usage?.cpuMillis ?? 0,
      memoryBytes: status.usage?.memoryBytes ?? 0,
      diskBytes: status.usage?.diskBytes ?? 0,
    },
    conditions: status.conditions.map((c) => ({ id: c.id, source: 'AGENT' as const, reason: c.reason, message: c.message, since: c.since })),
    ...(status.startedAt ? { startedAt: status.startedAt } : {}),
    ...(status.pid ? { pid: status.pid } : {}),
    ...(status.lastCrash ? { lastCrash: lastCrashOf(status.lastCrash) } : {}),
    ...(status.portInUse ? { portInUse: status.portInUse } : {}),
    ...(status.players ? { players: { online: status.players.online, max: status.players.max } } : {}),
    ...(status.sleeping ? { sleeping: { since: status.sleeping.since } } : {}),
    ...(status.lastWake ? { lastWake: { at: status.lastWake.at, ...(status.lastWake.player ? { player: status.lastWake.player } : {}) } } : {}),
  };
}

const lastCrashOf = (crash: LastCrashMessage): LastCrash => ({
  at: crash.at,
  ...(crash.hasExitCode ? { exitCode: crash.exitCode } : {}),
  ...(crash.signal ? { signal: crash.signal } : {}),
  ...(crash.reason ? { reason: crash.reason } : {}),
  restarts: crash.restarts,
  lastLines: crash.lastLines.slice(-20).map((line) => line.text),
});
