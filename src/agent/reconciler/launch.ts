import { heapMb, resolveRunCommand, type PlaceholderValues, type Template } from '../../shared/templates.js';
import type { LaunchSpec } from '../runtime/launch-spec.js';
import { chooseJava } from '../java/java-choice.js';
import type { JavaRuntime } from '../java/java-version.js';
import type { ServerTarget } from './server-target.js';

export interface HostSettings {
  /** The Java installations found on this host; `{java}` is the one that fits the template's minimum. */
  javas: readonly JavaRuntime[];
  /** The address game servers bind to. */
  bindAddress: string;
}

/** A server's root, and where its game finds the installed software (`{cairnDir}`). */
export interface ServerDirs {
  root: string;
  software: string;
}

export function placeholderValues(template: Template, desired: ServerTarget, dirs: ServerDirs, host: HostSettings): PlaceholderValues {
  const memoryMb = Math.max(1, Math.floor(desired.resources.memoryBytes / (1024 * 1024)));
  return {
    // Empty only for a template that does not run `{java}`: one that does is refused a start without it.
    java: chooseJava(host.javas, template.java?.minimum)?.path ?? '',
    node: process.execPath,
    serverDir: dirs.root,
    cairnDir: dirs.software,
    memoryMb: String(memoryMb),
    heapMb: String(heapMb(template, memoryMb)),
    cpus: String(Math.max(1, Math.ceil(desired.resources.cpuMillis / 1000))),
    port: String(desired.gamePort),
    bindAddress: host.bindAddress,
    version: desired.software.version,
  };
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
