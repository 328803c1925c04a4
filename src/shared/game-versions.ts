/**
 * Orders game versions as their vendors number them: dot-separated numbers compared as numbers
 * (`1.21.10` after `1.21.9`, `1.21` before `1.21.1`), then a version with a suffix (`-SNAPSHOT`,
 * `-pre1`, `-rc1`, `-crash`) before the same numbers without one, suffixes by text. Negative when
 * `a` is older than `b`.
 */
export function compareGameVersions(a: string, b: string): number {
  const [na, sa] = split(a);
  const [nb, sb] = split(b);
  for (let i = 0; i < Math.max(na.length, nb.length); i++) {
    const d = (na[i] ?? -1) - (nb[i] ?? -1);
    if (d !== 0) return d;
  }
  if (sa === sb) return 0;
  if (sa === '') return 1;
  if (sb === '') return -1;
  return sa < sb ? -1 : 1;
}

function split(version: string): [number[], string] {
  const match = /^(\d+(?:\.\d+)*)(.*)$/.exec(version);
  if (!match) return [[], version];
  return [match[1].split('.').map(Number), match[2].replace(/^[-_.+]/, '')];
}
