import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { findExecutable } from '../isolation/isolation-probe.js';
import { javaProbeDeadlineMs, probeJavaOnce } from './java-probe.js';
import { parseJavaVersion, type JavaRuntime } from './java-version.js';

export interface JavaSearch {
  /** `--java` paths, in the order given: each a `java` launcher or a JAVA_HOME directory. */
  given: readonly string[];
  /** The Agent's JAVA_HOME, if any. */
  javaHome?: string;
  /** Where distributions install JDKs side by side (`/usr/lib/jvm`). */
  jvmDir?: string;
  /** Whether to try `java` on PATH; tests of fake launchers turn it off. */
  onPath?: boolean;
  deadlineMs?: number;
}

/** Where a candidate came from: a launcher an operator named is worth a warning when it fails. */
interface Candidate {
  path: string;
  named: boolean;
}

/** A directory stands for the installation it is the home of; a bare name (`java`, `java21`) is looked up on PATH. */
async function launcherOf(path: string): Promise<string> {
  if (!path.includes(sep)) return (await findExecutable(path)) ?? path;
  const info = await stat(path).catch(() => null);
  return info?.isDirectory() ? join(path, 'bin', 'java') : path;
}

async function candidates(search: JavaSearch): Promise<Candidate[]> {
  const found: Candidate[] = [];
  for (const path of search.given) found.push({ path: await launcherOf(path), named: true });
  if (search.javaHome) found.push({ path: join(search.javaHome, 'bin', 'java'), named: true });
  const jvmDir = search.jvmDir ?? '/usr/lib/jvm';
  const homes = (await readdir(jvmDir).catch(() => [] as string[])).sort();
  for (const home of homes) found.push({ path: join(jvmDir, home, 'bin', 'java'), named: false });
  if (search.onPath !== false) {
    const onPath = await findExecutable('java');
    if (onPath) found.push({ path: onPath, named: false });
  }
  return found;
}

/**
 * The Java installations of this host, in the order found (`--java`, JAVA_HOME, /usr/lib/jvm,
 * `java` on PATH), one per real path. Each launcher is asked its version; one that is missing,
 * fails, hangs past the deadline or prints something else is left out and said once (a warning
 * when an operator named it), never an error of the Agent's.
 */
export async function discoverJava(search: JavaSearch, logger: Logger): Promise<JavaRuntime[]> {
  const seen = new Set<string>();
  const runtimes: JavaRuntime[] = [];
  for (const candidate of await candidates(search)) {
    const real = await realpath(candidate.path).catch(() => null);
    const skip = (why: string) => {
      const log = candidate.named ? logger.warn : logger.debug;
      log.call(logger, { event: 'java_skipped', path: candidate.path, why }, `${candidate.path} is not a usable Java (${why}); left out`);
    };
    if (real === null) {
      // A JDK directory without a launcher (a JRE's remains, a docs package) is no news.
      if (candidate.named) skip('not found');
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    const outcome = await probeJavaOnce(real, search.deadlineMs ?? javaProbeDeadlineMs);
    if ('failed' in outcome) {
      skip(outcome.failed);
      continue;
    }
    const parsed = parseJavaVersion(outcome.output);
    if (!parsed) {
      skip(`its -version printed no Java version: ${JSON.stringify(outcome.output.split('\n')[0].slice(0, 120))}`);
      continue;
    }
    runtimes.push({ name: 'java', ...parsed, path: real });
  }
  logger.info({ event: 'java_found', runtimes: runtimes.map((r) => `${r.major} ${r.path}`) }, runtimes.length ? `found ${runtimes.length} Java installation(s)` : 'found no Java; templates that run {java} will not start here');
  return runtimes;
}
