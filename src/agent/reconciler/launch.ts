import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { heapMb, resolveManagedConfig, resolveRunCommand, type PlaceholderValues, type Template } from '../../shared/templates.js';
import { PropertiesFile } from '../../shared/properties-file.js';
import type { LaunchSpec } from '../runtime/launch-spec.js';
import type { DesiredServer } from './desired-server.js';
import { cairnDirName } from './installer.js';

export interface HostSettings {
  /** The Java the real templates run with. */
  java: string;
  /** The address game servers bind to. */
  bindAddress: string;
}

export function placeholderValues(template: Template, desired: DesiredServer, serverDir: string, host: HostSettings): PlaceholderValues {
  const memoryMb = Math.max(1, Math.floor(desired.resources.memoryBytes / (1024 * 1024)));
  return {
    java: host.java,
    node: process.execPath,
    serverDir,
    cairnDir: join(serverDir, cairnDirName),
    memoryMb: String(memoryMb),
    heapMb: String(heapMb(template, memoryMb)),
    port: String(desired.gamePort),
    bindAddress: host.bindAddress,
    version: desired.software.version,
  };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/**
 * Writes the keys Cairn manages into the template's config file before every start, so the
 * process always binds the port the Controller assigned. Everything else in the file is the
 * operator's and stays as it is.
 */
export async function writeManagedConfig(template: Template, values: PlaceholderValues, serverDir: string): Promise<void> {
  const managed = resolveManagedConfig(template, values);
  const path = join(serverDir, template.config.file);
  if (template.config.format === 'properties') {
    const file = PropertiesFile.parse(await readText(path));
    for (const [key, value] of Object.entries(managed)) file.set(key, value);
    await writeFile(path, file.toString());
  } else if (template.config.format === 'simproxy-json') {
    const current = await readText(path);
    const previous = current ? (JSON.parse(current) as { routes?: unknown[]; lobbyServerId?: string }) : {};
    const config = { bind: managed.bind ?? values.bindAddress, port: Number(managed.port ?? values.port), routes: previous.routes ?? [], ...(previous.lobbyServerId ? { lobbyServerId: previous.lobbyServerId } : {}) };
    await writeFile(path, JSON.stringify(config, null, 2) + '\n');
  }
}

/** The game's whole environment: a minimal, predictable one, never the Agent's own (which may hold secrets). */
const baseEnv = () => ({
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  LANG: process.env.LANG ?? 'C.UTF-8',
  HOME: process.env.HOME ?? '/',
});

export function launchSpec(template: Template, values: PlaceholderValues, serverDir: string): LaunchSpec {
  const command = resolveRunCommand(template, values);
  const stopMs = template.stopTimeoutSeconds * 1000;
  return {
    command: command.command,
    args: command.args,
    cwd: serverDir,
    env: { ...baseEnv(), ...command.env },
    stopCommand: template.stopCommand,
    stopTimeoutMs: stopMs,
    termTimeoutMs: Math.min(stopMs, 10_000),
  };
}
