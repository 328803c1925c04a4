import type { DesiredPlugin, DesiredServer, ServerNetwork } from '../../../shared/link/messages.js';
import type { PluginInstallationDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { nodeFileNames } from '../plugins/plugin-views.js';
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
    sleep: entry.sleep ? { afterEmptySeconds: entry.sleep.afterEmptySeconds, wakeOnJoin: entry.sleep.wakeOnJoin } : null,
    wakeNonce: desired.wakeNonce ?? 0,
  };
}

/** A server's installed plugins as the link carries them, each with its file name in `plugins/`. */
export function toLinkPlugins(installations: readonly PluginInstallationDoc[]): DesiredPlugin[] {
  const names = nodeFileNames(installations);
  return installations.map((d) => ({ installationId: d._id, fileName: names.get(d._id)!, sha256: d.sha256, sizeBytes: d.sizeBytes, pluginId: d.pluginId }));
}
