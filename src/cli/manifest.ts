import YAML from 'yaml';
import { UsageError } from './errors.js';
import type { Sleep } from './api-types.js';
import { parseCpu, parseMemory } from './quantity.js';
import { sleepSeconds } from './sleep.js';

/**
 * One server as `cairn apply` wants it. Fields left out are left as they are on an existing
 * server; creating one needs software and both resources (`creationGaps`).
 */
export interface DesiredServer {
  name: string;
  team: string;
  software?: { template: string; version: string };
  resources?: { cpuMillis?: number; memoryBytes?: number };
  desiredState?: 'RUNNING' | 'STOPPED';
  inNetwork?: boolean;
  properties?: Record<string, string>;
  /**
   * Catalog plugins as the file names them: a plugin id or a catalog slug (`luckperms` for
   * `sample:luckperms`); `version` is a version or a catalog version id, absent for the newest compatible one.
   */
  plugins?: { pluginId: string; version?: string }[];
  /** null (`sleep: null` or `false` in the file) turns sleeping off. */
  sleep?: Sleep | null;
}

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A single value as text (YAML reads `20`, `false` and `1.21` as numbers and booleans). */
function scalar(v: unknown, where: string): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new UsageError(`${where}: a single value`);
}

function text(item: Raw, key: string, where: string): string {
  const v = item[key];
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string' || v === '') throw new UsageError(`${where}.${key}: required text`);
  return v;
}

function resources(raw: unknown, where: string): DesiredServer['resources'] {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new UsageError(`${where}.resources: a map such as {cpu: 500m, memory: 512Mi}`);
  const amount = (quantity: string, exact: string, parse: (t: string) => number) => {
    if (raw[exact] !== undefined) {
      if (!Number.isSafeInteger(raw[exact]) || (raw[exact] as number) < 1) throw new UsageError(`${where}.resources.${exact}: a whole number of at least 1`);
      return raw[exact] as number;
    }
    return raw[quantity] === undefined ? undefined : parse(scalar(raw[quantity], `${where}.resources.${quantity}`));
  };
  const result: NonNullable<DesiredServer['resources']> = {};
  const cpuMillis = amount('cpu', 'cpuMillis', parseCpu);
  const memoryBytes = amount('memory', 'memoryBytes', parseMemory);
  if (cpuMillis !== undefined) result.cpuMillis = cpuMillis;
  if (memoryBytes !== undefined) result.memoryBytes = memoryBytes;
  return result;
}

function plugins(raw: unknown, where: string): DesiredServer['plugins'] {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw new UsageError(`${where}.plugins: a list of plugin ids or {id, version}`);
  return raw.map((p: unknown, i) => {
    if (typeof p === 'string' && p !== '') return { pluginId: p };
    if (!isObject(p)) throw new UsageError(`${where}.plugins[${i}]: a plugin id or {id, version}`);
    const pluginId = p.id ?? p.pluginId;
    if (typeof pluginId !== 'string' || pluginId === '') throw new UsageError(`${where}.plugins[${i}].id: required`);
    const version = p.version ?? p.versionId;
    return version === undefined ? { pluginId } : { pluginId, version: scalar(version, `${where}.plugins[${i}].version`) };
  });
}

function properties(raw: unknown, where: string): DesiredServer['properties'] {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new UsageError(`${where}.properties: a map of server.properties keys to values`);
  // server.properties holds text: `max-players: 20` and `pvp: false` mean "20" and "false".
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, scalar(v, `${where}.properties.${k}`)]));
}

/** `sleep: {afterEmpty: 10m}` (a duration) or `{afterEmptySeconds: 600}`, with an optional `wakeOnJoin`; null or false turns it off. */
function sleep(raw: unknown, where: string): DesiredServer['sleep'] {
  if (raw === undefined) return undefined;
  if (raw === null || raw === false) return null;
  if (!isObject(raw)) throw new UsageError(`${where}.sleep: a map such as {afterEmpty: 10m, wakeOnJoin: true}, or null to turn it off`);
  const unknown = Object.keys(raw).filter((k) => !['afterEmpty', 'afterEmptySeconds', 'wakeOnJoin'].includes(k));
  if (unknown.length > 0) throw new UsageError(`${where}.sleep: unknown field ${unknown.join(', ')}`);
  let afterEmptySeconds: number;
  if (raw.afterEmptySeconds !== undefined) {
    if (!Number.isSafeInteger(raw.afterEmptySeconds)) throw new UsageError(`${where}.sleep.afterEmptySeconds: a whole number of seconds`);
    afterEmptySeconds = raw.afterEmptySeconds as number;
  } else if (raw.afterEmpty !== undefined) {
    afterEmptySeconds = sleepSeconds(scalar(raw.afterEmpty, `${where}.sleep.afterEmpty`), `${where}.sleep.afterEmpty`);
  } else {
    throw new UsageError(`${where}.sleep.afterEmpty: required (how long empty before it sleeps, e.g. 10m)`);
  }
  if (raw.wakeOnJoin !== undefined && typeof raw.wakeOnJoin !== 'boolean') throw new UsageError(`${where}.sleep.wakeOnJoin: true or false`);
  return raw.wakeOnJoin === undefined ? { afterEmptySeconds } : { afterEmptySeconds, wakeOnJoin: raw.wakeOnJoin };
}

function server(item: unknown, where: string): DesiredServer {
  if (!isObject(item)) throw new UsageError(`${where}: an object with kind: Server`);
  if (item.kind !== 'Server') throw new UsageError(`${where}.kind: must be Server, got ${JSON.stringify(item.kind)}`);
  const software = item.software;
  if (software !== undefined && !isObject(software)) throw new UsageError(`${where}.software: a map such as {template: paper, version: "1.21.4"}`);
  const desiredState = item.desiredState === undefined ? undefined : scalar(item.desiredState, `${where}.desiredState`).toUpperCase();
  if (desiredState !== undefined && desiredState !== 'RUNNING' && desiredState !== 'STOPPED') throw new UsageError(`${where}.desiredState: RUNNING or STOPPED`);
  if (item.inNetwork !== undefined && typeof item.inNetwork !== 'boolean') throw new UsageError(`${where}.inNetwork: true or false`);
  const known = new Set(['kind', 'name', 'team', 'software', 'resources', 'desiredState', 'inNetwork', 'properties', 'plugins', 'sleep']);
  const unknown = Object.keys(item).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new UsageError(`${where}: unknown field ${unknown.join(', ')}`);
  const result: DesiredServer = {
    name: text(item, 'name', where),
    team: text(item, 'team', where),
  };
  if (software !== undefined) result.software = { template: text(software, 'template', `${where}.software`), version: text(software, 'version', `${where}.software`) };
  const res = resources(item.resources, where);
  if (res !== undefined) result.resources = res;
  if (desiredState !== undefined) result.desiredState = desiredState;
  if (item.inNetwork !== undefined) result.inNetwork = item.inNetwork;
  const props = properties(item.properties, where);
  if (props !== undefined) result.properties = props;
  const plugs = plugins(item.plugins, where);
  if (plugs !== undefined) result.plugins = plugs;
  const sleepSetting = sleep(item.sleep, where);
  if (sleepSetting !== undefined) result.sleep = sleepSetting;
  return result;
}

/** What POST /servers needs that the file leaves out, as the file would name it: empty for a server that can be created. */
export function creationGaps(s: DesiredServer): string[] {
  return [
    ...(s.software ? [] : ['software (template and version)']),
    ...(s.resources?.cpuMillis === undefined ? ['resources.cpu'] : []),
    ...(s.resources?.memoryBytes === undefined ? ['resources.memory'] : []),
  ];
}

/** The servers of an apply file: YAML or JSON; a list, `{items: [...]}`, one object, or several YAML documents. */
export function parseManifest(source: string): DesiredServer[] {
  let docs: unknown[];
  try {
    docs = YAML.parseAllDocuments(source).map((d) => {
      if (d.errors.length > 0) throw d.errors[0];
      return d.toJSON() as unknown;
    });
  } catch (e) {
    throw new UsageError(`the file is neither YAML nor JSON: ${(e as Error).message}`);
  }
  const items = docs.filter((d) => d !== null && d !== undefined).flatMap((d): unknown[] => (Array.isArray(d) ? d : isObject(d) && Array.isArray(d.items) ? d.items : [d]));
  if (items.length === 0) throw new UsageError('the file names no server');
  const servers = items.map((item, i) => server(item, `item ${i + 1}`));
  const seen = new Set<string>();
  for (const s of servers) {
    const key = `${s.team}\u0000${s.name}`;
    if (seen.has(key)) throw new UsageError(`server "${s.name}" of team "${s.team}" appears twice`);
    seen.add(key);
  }
  return servers;
}
