import type { PluginInstallation, ServerItem } from './api-types.js';
import { CliError } from './errors.js';
import type { DesiredServer } from './manifest.js';
import { formatCpu, formatMemory } from './quantity.js';

/** What a server is now: the list item, and properties and plugins when the file names them. */
export interface Current {
  server: ServerItem;
  properties?: Record<string, string>;
  plugins?: PluginInstallation[];
}

export interface Change {
  field: string;
  from?: string;
  to: string;
}

/** The calls that make a server match its file, and the changes to show for them. */
export interface Plan {
  action: 'created' | 'configured' | 'unchanged';
  changes: Change[];
  patch?: { resources?: DesiredServer['resources']; inNetwork?: boolean };
  /** Another version of the same template: the update workflow (POST /servers/{id}/software), run first. */
  software?: { version: string };
  properties?: Record<string, string>;
  install: { pluginId: string; version?: string }[];
  update: { installationId: string; pluginId: string; version: string }[];
  power?: 'start' | 'stop';
}

const software = (s: { template: string; version: string }) => `${s.template} ${s.version}`;
const versionMatches = (p: PluginInstallation, version: string | undefined) => version === undefined || p.version === version || p.catalogVersionId === version;

function pluginPlan(desired: DesiredServer['plugins'], installed: PluginInstallation[]): Pick<Plan, 'install' | 'update' | 'changes'> {
  const plan: Pick<Plan, 'install' | 'update' | 'changes'> = { install: [], update: [], changes: [] };
  for (const want of desired ?? []) {
    const have = installed.find((p) => p.pluginId === want.pluginId);
    if (!have) {
      plan.install.push(want);
      plan.changes.push({ field: `plugins.${want.pluginId}`, to: want.version ?? 'newest compatible' });
    } else if (!versionMatches(have, want.version)) {
      plan.update.push({ installationId: have.id, pluginId: want.pluginId, version: want.version! });
      plan.changes.push({ field: `plugins.${want.pluginId}`, from: have.version, to: want.version! });
    }
  }
  return plan;
}

/**
 * How to bring `current` (absent: the server does not exist) to `desired`. Only what the file
 * names is compared: properties and plugins it leaves out stay as they are. Another version of
 * the same template is an update; another template is refused (no API changes it) rather than
 * silently ignored.
 */
export function planServer(desired: DesiredServer, current?: Current): Plan {
  if (!current) {
    const plugins = pluginPlan(desired.plugins, []);
    const changes: Change[] = [
      { field: 'software', to: software(desired.software) },
      { field: 'resources', to: `cpu ${formatCpu(desired.resources.cpuMillis)}, memory ${formatMemory(desired.resources.memoryBytes)}` },
      ...(desired.inNetwork === undefined ? [] : [{ field: 'inNetwork', to: String(desired.inNetwork) }]),
      ...Object.entries(desired.properties ?? {}).map(([k, v]) => ({ field: `properties.${k}`, to: v })),
      ...plugins.changes,
      ...(desired.desiredState === undefined ? [] : [{ field: 'desiredState', to: desired.desiredState }]),
    ];
    return {
      action: 'created', changes,
      properties: desired.properties && Object.keys(desired.properties).length > 0 ? desired.properties : undefined,
      install: plugins.install, update: [], power: desired.desiredState === 'RUNNING' ? 'start' : undefined,
    };
  }
  const s = current.server;
  if (s.software.template !== desired.software.template) {
    throw new CliError(`server/${s.name}: the software is ${software(s.software)}; the API cannot change it to ${software(desired.software)}`);
  }
  const changes: Change[] = [];
  const update = s.software.version !== desired.software.version ? { version: desired.software.version } : undefined;
  if (update) changes.push({ field: 'software.version', from: s.software.version, to: desired.software.version });
  const patch: NonNullable<Plan['patch']> = {};
  if (s.resources.cpuMillis !== desired.resources.cpuMillis || s.resources.memoryBytes !== desired.resources.memoryBytes) {
    patch.resources = desired.resources;
    if (s.resources.cpuMillis !== desired.resources.cpuMillis) changes.push({ field: 'resources.cpu', from: formatCpu(s.resources.cpuMillis), to: formatCpu(desired.resources.cpuMillis) });
    if (s.resources.memoryBytes !== desired.resources.memoryBytes) changes.push({ field: 'resources.memory', from: formatMemory(s.resources.memoryBytes), to: formatMemory(desired.resources.memoryBytes) });
  }
  if (desired.inNetwork !== undefined && desired.inNetwork !== s.inNetwork) {
    patch.inNetwork = desired.inNetwork;
    changes.push({ field: 'inNetwork', from: String(s.inNetwork), to: String(desired.inNetwork) });
  }
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(desired.properties ?? {})) {
    const now = current.properties?.[k];
    if (now === v) continue;
    properties[k] = v;
    changes.push({ field: `properties.${k}`, from: now, to: v });
  }
  const plugins = pluginPlan(desired.plugins, current.plugins ?? []);
  changes.push(...plugins.changes);
  const wantsPower = desired.desiredState !== undefined && desired.desiredState !== s.desiredState;
  if (wantsPower) changes.push({ field: 'desiredState', from: s.desiredState, to: desired.desiredState! });
  return {
    action: changes.length === 0 ? 'unchanged' : 'configured',
    changes,
    patch: Object.keys(patch).length > 0 ? patch : undefined,
    ...(update ? { software: update } : {}),
    properties: Object.keys(properties).length > 0 ? properties : undefined,
    install: plugins.install,
    update: plugins.update,
    power: wantsPower ? (desired.desiredState === 'RUNNING' ? 'start' : 'stop') : undefined,
  };
}

/** The changes as diff lines: `+ field: value` for what is new, `~ field: old -> new` for what changes. */
export function diffLines(changes: Change[]): string[] {
  return changes.map((c) => (c.from === undefined ? `  + ${c.field}: ${c.to}` : `  ~ ${c.field}: ${c.from} -> ${c.to}`));
}
