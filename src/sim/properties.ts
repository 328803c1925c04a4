/**
 * Reads Java `.properties` text (what `server.properties` is): `#`/`!` comments, `=`, `:` or
 * whitespace separators, backslash line continuations and escapes including `\uXXXX`.
 * Read-only: simcraft never rewrites the file, the Agent owns it.
 */
export function parseProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const logical of logicalLines(text)) {
    const trimmed = logical.replace(/^[ \t\f]+/, '');
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const sep = findSeparator(trimmed);
    const key = trimmed.slice(0, sep.keyEnd);
    const value = trimmed.slice(sep.valueStart);
    result.set(unescape(key), unescape(value));
  }
  return result;
}

/** Joins lines ending in an odd number of backslashes with the next one, minus its leading blanks. */
function logicalLines(text: string): string[] {
  const physical = text.split(/\r\n|\r|\n/);
  const out: string[] = [];
  let pending: string | undefined;
  for (const line of physical) {
    const part = pending === undefined ? line : line.replace(/^[ \t\f]+/, '');
    const trailing = /\\+$/.exec(part)?.[0].length ?? 0;
    const isComment = pending === undefined && /^[ \t\f]*[#!]/.test(part);
    if (trailing % 2 === 1 && !isComment) {
      pending = (pending ?? '') + part.slice(0, -1);
      continue;
    }
    out.push((pending ?? '') + part);
    pending = undefined;
  }
  if (pending !== undefined) out.push(pending);
  return out;
}

function findSeparator(line: string): { keyEnd: number; valueStart: number } {
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') { i += 2; continue; }
    if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    i++;
  }
  const keyEnd = Math.min(i, line.length);
  let j = keyEnd;
  while (j < line.length && /[ \t\f]/.test(line[j])) j++;
  if (j < line.length && (line[j] === '=' || line[j] === ':')) {
    j++;
    while (j < line.length && /[ \t\f]/.test(line[j])) j++;
  }
  return { keyEnd, valueStart: j };
}

const simpleEscapes: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : simpleEscapes[e] ?? e);
}
