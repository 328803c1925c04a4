import type { DesiredPlugin, DesiredServer, LastCrash as LastCrashMessage, ServerNetwork, ServerStatus } from '../../../shared/link/messages.js';
import type { LastCrash } from '../../domain/last-crash.js';
import type { ServerRuntimeState } from '../../domain/server-spec.js';
import type { PluginInstallationDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { nodeFileNames } from '../plugins/plugin-views.js';
import type { ServerReport } from '../../domain/server-report.js';
import type { DesiredServerEntry } from './desired-state.js';

/** Each template's JSON, made once: every server of every connecting Node carries it (100,000 copies made per fleet start). */
const templateJsons = new WeakMap<object, string>();
const templateJsonOf = (template: object): string => templateJsons.get(template) ?? templateJsons.set(template, JSON.stringify(template)).get(template)!;

/** A server's desired spec as the link carries it, with its template so the Node needs no copy. */
export function toLinkDesired(entry: DesiredServerEntry, templates: TemplateCatalog, plugins: DesiredPlugin[] = [], network: ServerNetwork | null = null): DesiredServer {
  const { desired } = entry;
  const resolved = templates.resolve(desired.software);
  const template = 'problem' in resolved ? undefined : resolved.template;
  return {
    serverId: entry.serverId,
    generation: entry.generation,
    software: { template: desired.software.template, version: desired.software.version, build: desired.software.build ?? '' },
    resources: { cpuMillis: desired.resources.cpuMillis, memoryBytes: desired.resources.memoryBytes, diskBytes: desired.resources.diskBytes ?? 0 },
    gamePort: entry.gamePort ?? 0,
    desiredState: `DESIRED_RUNTIME_STATE_${desired.state}`,
    restartPolicy: desired.restartPolicy,
    acknowledgedConditionIds: desired.acknowledgedConditions,
    inNetwork: desired.inNetwork,
    restartNonce: desired.restartNonce,
    templateJson: template ? templateJsonOf(template) : '',
    plugins,
    network,
    egressAllow: desired.egressAllow ?? [],
  };
}

/** A server's installed plugins as the link carries them, each with its file name in `plugins/`. */
export function toLinkPlugins(installations: readonly PluginInstallationDoc[]): DesiredPlugin[] {
  const names = nodeFileNames(installations);
  return installations.map((d) => ({ installationId: d._id, fileName: names.get(d._id)!, sha256: d.sha256, sizeBytes: d.sizeBytes, pluginId: d.pluginId }));
}

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
