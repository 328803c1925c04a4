import type { PluginInstallation, ServerItem, Sleep, UpdateServer } from './api-types.js';
import type { ResolvedPlugin } from './catalog-plugins.js';
import { CliError } from './errors.js';
import type { DesiredServer } from './manifest.js';
import { formatCpu, formatMemory } from './quantity.js';
import { sameSleep, sleepWords } from './sleep.js';

/** What a server is now: the list item, and properties, plugins and sleep (null: off) when the file names them. */
export interface Current {
  server: ServerItem;
  properties?: Record<string, string>;
  plugins?: PluginInstallation[];
  sleep?: Sleep | null;
}

/**
 * When a change reaches a running game: `restart` restarts it now (new resources are applied by a
 * graceful restart, another software version by the update workflow's stop and start);
 * `next-start` waits for its next start (network membership, properties and plugins).
 */
export type Effect = 'restart' | 'next-start';

export interface Change {
  field: string;
  from?: string;
  to: string;
  effect?: Effect;
}

/** The calls that make a server match its file, and the changes to show for them. */
export interface Plan {
  action: 'created' | 'configured' | 'unchanged';
  changes: Change[];
  patch?: UpdateServer;
  /** Another version of the same template: the update workflow (POST /servers/{id}/software), run first. */
  software?: { version: string };
  properties?: Record<string, string>;
  install: { pluginId: string; versionId?: string }[];
  update: { installationId: string; pluginId: string; versionId: string }[];
  power?: 'start' | 'stop';
}

const software = (s: { template: string; version: string }) => `${s.template} ${s.version}`;
const versionMatches = (p: PluginInstallation, want: ResolvedPlugin) => want.version === undefined || p.catalogVersionId === want.version.id;

function pluginPlan(desired: ResolvedPlugin[], installed: PluginInstallation[]): Pick<Plan, 'install' | 'update' | 'changes'> {
  const plan: Pick<Plan, 'install' | 'update' | 'changes'> = { install: [], update: [], changes: [] };
  for (const want of desired) {
    const have = installed.find((p) => p.pluginId === want.pluginId);
    if (!have) {
      plan.install.push(want.version ? { pluginId: want.pluginId, versionId: want.version.id } : { pluginId: want.pluginId });
      plan.changes.push({ field: `plugins.${want.pluginId}`, to: want.version?.label ?? 'newest compatible' });
    } else if (!versionMatches(have, want)) {
      plan.update.push({ installationId: have.id, pluginId: want.pluginId, versionId: want.version!.id });
      plan.changes.push({ field: `plugins.${want.pluginId}`, from: have.version, to: want.version!.label });
    }
  }
  return plan;
}

function createPlan(desired: DesiredServer, plugins: ResolvedPlugin[]): Plan {
  const { cpuMillis, memoryBytes } = desired.resources ?? {};
  if (!desired.software || cpuMillis === undefined || memoryBytes === undefined) throw new CliError('creating a server needs software and resources');
  const install = pluginPlan(plugins, []);
  const changes: Change[] = [
    { field: 'software', to: software(desired.software) },
    { field: 'resources', to: `cpu ${formatCpu(cpuMillis)}, memory ${formatMemory(memoryBytes)}` },
    ...(desired.inNetwork === undefined ? [] : [{ field: 'inNetwork', to: String(desired.inNetwork) }]),
    ...(desired.sleep ? [{ field: 'sleep', to: sleepWords(desired.sleep) }] : []),
    ...Object.entries(desired.properties ?? {}).map(([k, v]) => ({ field: `properties.${k}`, to: v })),
    ...install.changes,
    ...(desired.desiredState === undefined ? [] : [{ field: 'desiredState', to: desired.desiredState }]),
  ];
  return {
    action: 'created', changes,
    properties: desired.properties && Object.keys(desired.properties).length > 0 ? desired.properties : undefined,
    install: install.install, update: [], power: desired.desiredState === 'RUNNING' ? 'start' : undefined,
  };
}

/**
 * How to bring `current` (absent: the server does not exist) to `desired`, with its plugins
 * already looked up in the catalog. Only what the file names is compared: fields, properties and
 * plugins it leaves out stay as they are. Another version of the same template is an update;
 * another template is refused (no API changes it) rather than silently ignored. On a running
 * server each change says when it reaches the game.
 */
export function planServer(desired: DesiredServer, current: Current | undefined, plugins: ResolvedPlugin[] = []): Plan {
  if (!current) return createPlan(desired, plugins);
  const s = current.server;
  const running = s.runtimeState === 'RUNNING' || s.runtimeState === 'STARTING';
  const effect = (e: Effect): { effect?: Effect } => (running ? { effect: e } : {});
  const changes: Change[] = [];
  if (desired.software && s.software.template !== desired.software.template) {
    throw new CliError(`the software is ${software(s.software)}; the API cannot change it to ${software(desired.software)}`);
  }
  const update = desired.software && s.software.version !== desired.software.version ? { version: desired.software.version } : undefined;
  if (update) changes.push({ field: 'software.version', from: s.software.version, to: update.version, ...effect('restart') });
  const patch: NonNullable<Plan['patch']> = {};
  const resources = { cpuMillis: desired.resources?.cpuMillis ?? s.resources.cpuMillis, memoryBytes: desired.resources?.memoryBytes ?? s.resources.memoryBytes };
  if (s.resources.cpuMillis !== resources.cpuMillis || s.resources.memoryBytes !== resources.memoryBytes) {
    patch.resources = resources;
    if (s.resources.cpuMillis !== resources.cpuMillis) changes.push({ field: 'resources.cpu', from: formatCpu(s.resources.cpuMillis), to: formatCpu(resources.cpuMillis), ...effect('restart') });
    if (s.resources.memoryBytes !== resources.memoryBytes) changes.push({ field: 'resources.memory', from: formatMemory(s.resources.memoryBytes), to: formatMemory(resources.memoryBytes), ...effect('restart') });
  }
  if (desired.inNetwork !== undefined && desired.inNetwork !== s.inNetwork) {
    patch.inNetwork = desired.inNetwork;
    changes.push({ field: 'inNetwork', from: String(s.inNetwork), to: String(desired.inNetwork), ...effect('next-start') });
  }
  // A new sleep setting restarts nothing: the Agent applies it to the game as it runs.
  if (desired.sleep !== undefined && !sameSleep(desired.sleep, current.sleep)) {
    patch.sleep = desired.sleep;
    changes.push({ field: 'sleep', from: sleepWords(current.sleep), to: sleepWords(desired.sleep) });
  }
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(desired.properties ?? {})) {
    const now = current.properties?.[k];
    if (now === v) continue;
    properties[k] = v;
    changes.push({ field: `properties.${k}`, from: now, to: v, ...effect('next-start') });
  }
  const pluginChanges = pluginPlan(plugins, current.plugins ?? []);
  changes.push(...pluginChanges.changes.map((c) => ({ ...c, ...effect('next-start') })));
  const wantsPower = desired.desiredState !== undefined && desired.desiredState !== s.desiredState;
  if (wantsPower) changes.push({ field: 'desiredState', from: s.desiredState, to: desired.desiredState! });
  return {
    action: changes.length === 0 ? 'unchanged' : 'configured',
    changes,
    patch: Object.keys(patch).length > 0 ? patch : undefined,
    ...(update ? { software: update } : {}),
    properties: Object.keys(properties).length > 0 ? properties : undefined,
    install: pluginChanges.install,
    update: pluginChanges.update,
    power: wantsPower ? (desired.desiredState === 'RUNNING' ? 'start' : 'stop') : undefined,
  };
}

const effectNotes: Record<Effect, string> = { restart: ' (will restart the running server)', 'next-start': ' (applies at its next start)' };

/** The changes as diff lines: `+ field: value` for what is new, `~ field: old -> new` for what changes, with when a running game gets it. */
export function diffLines(changes: Change[]): string[] {
  return changes.map((c) => `${c.from === undefined ? `  + ${c.field}: ${c.to}` : `  ~ ${c.field}: ${c.from} -> ${c.to}`}${c.effect ? effectNotes[c.effect] : ''}`);
}
