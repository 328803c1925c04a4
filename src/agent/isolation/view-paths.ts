import { lstat, readdir, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, sep } from 'node:path';
import type { ViewEntry } from './box-command.js';
import { findExecutable } from './isolation-probe.js';

/** The system's programs and libraries: bound read-only, or recreated as the links they are (merged /usr). */
const systemDirs = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of /etc a game may need, and nothing that is a host's secret or its configuration of
 * other services: the loader's cache, certificates, name resolution, time zone, the account
 * names (no passwords live there), and the alternatives and Java configs Debian's JDKs link to.
 */
const etcEntries = [
  'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'ssl', 'ca-certificates', 'ca-certificates.conf', 'pki', 'resolv.conf', 'hosts',
  'host.conf', 'nsswitch.conf', 'gai.conf', 'localtime', 'timezone', 'passwd', 'group', 'alternatives', 'mime.types',
];

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

async function entryFor(path: string): Promise<ViewEntry | null> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink() && systemDirs.includes(path)) return { kind: 'symlink', target: await readlink(path), path };
    return { kind: 'ro-bind', path };
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
}

/** The system part of every game's view. */
export async function systemViewEntries(): Promise<ViewEntry[]> {
  const etc = await readdir('/etc').catch(() => [] as string[]);
  const java = etc.filter((name) => name.startsWith('java-') || name === 'java');
  const paths = [...systemDirs, ...[...etcEntries, ...java].map((name) => join('/etc', name))];
  const entries = await Promise.all(paths.map(entryFor));
  return entries.filter((e): e is ViewEntry => e !== null);
}

/** True when `path` is inside (or is) a path the view binds. */
export function isCovered(entries: readonly ViewEntry[], path: string): boolean {
  return entries.some((e) => e.kind === 'ro-bind' && (path === e.path || path.startsWith(e.path.endsWith(sep) ? e.path : e.path + sep)));
}

/**
 * The installation a program runs from: for `/opt/jdk-21/bin/java` that is `/opt/jdk-21`, the
 * directory above its `bin`. Null when the program cannot be found.
 */
export async function installationOf(program: string): Promise<string | null> {
  const path = isAbsolute(program) ? program : await findExecutable(program);
  if (!path) return null;
  try {
    const real = await realpath(path);
    const dir = dirname(real);
    return dir.endsWith(`${sep}bin`) ? dirname(dir) : dir;
  } catch {
    return null;
  }
}

/** Read-only entries for paths the system part does not already hold. */
export async function extraEntries(base: readonly ViewEntry[], paths: readonly string[]): Promise<ViewEntry[]> {
  const extra: ViewEntry[] = [];
  for (const path of paths) {
    if (isCovered([...base, ...extra], path)) continue;
    const entry = await entryFor(path);
    if (entry) extra.push({ kind: 'ro-bind', path: entry.path });
  }
  return extra;
}
