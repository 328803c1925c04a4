/** A Java installation this Node has, as the Agent reports it (`status.runtimes` of the Node). */
export interface JavaRuntime {
  name: 'java';
  /** As the launcher prints it: `17.0.15`, `1.8.0_392`, `25`. */
  version: string;
  /** The feature release: 8 for `1.8.0_392`, 17 for `17.0.15`. */
  major: number;
  /** The launcher's real path (symbolic links resolved), which `{java}` expands to. */
  path: string;
}

// Both vendors' first line: `openjdk version "17.0.15" 2025-04-15` and Oracle's `java version "1.8.0_202"`.
const versionLine = /^(?:openjdk|java) version "([^"]+)"/m;

/**
 * The version and major of `java -version`'s output, or null when it is not a Java's. Releases
 * before 9 number themselves `1.<major>`; later ones start with the major (`25` may stand alone,
 * `21-ea` carries a suffix).
 */
export function parseJavaVersion(output: string): { version: string; major: number } | null {
  const version = versionLine.exec(output)?.[1];
  if (version === undefined) return null;
  const digits = /^1\.(\d+)/.exec(version) ?? /^(\d+)/.exec(version);
  if (!digits) return null;
  const major = Number(digits[1]);
  return major > 0 ? { version, major } : null;
}
