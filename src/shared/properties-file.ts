/**
 * Java `.properties` files (server.properties), edited without disturbing them: comments, blank
 * lines, order, line endings and every untouched entry stay byte for byte; only the entries that
 * change are rewritten, and new keys are appended. Reading follows java.util.Properties.load:
 * `=`, `:` or white space end a key, a line ending in an odd number of backslashes continues,
 * and `\t \n \r \f \uXXXX` and `\<any>` are escapes.
 */

interface Entry {
  kind: 'entry';
  key: string;
  value: string;
  /** The physical lines of the entry, with their line endings, exactly as read. */
  raw: string;
}

interface Other {
  kind: 'other';
  raw: string;
}

type Block = Entry | Other;

export class PropertiesFormatError extends Error {}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\f';

/** Splits text into physical lines, each keeping its own line ending. */
function physicalLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n' || text[i] === '\r') {
      const end = text[i] === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1;
      lines.push(text.slice(start, end));
      start = end;
      i = end - 1;
    }
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

const stripEnding = (line: string) => line.replace(/\r?\n$|\r$/, '');

function endsWithContinuation(content: string): boolean {
  let slashes = 0;
  for (let i = content.length - 1; i >= 0 && content[i] === '\\'; i--) slashes++;
  return slashes % 2 === 1;
}

function unescape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = text.at(++i);
    if (n === undefined) break;
    if (n === 't') out += '\t';
    else if (n === 'n') out += '\n';
    else if (n === 'r') out += '\r';
    else if (n === 'f') out += '\f';
    else if (n === 'u') {
      const hex = text.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PropertiesFormatError(`malformed \\u escape: \\u${hex}`);
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else out += n;
  }
  return out;
}

/** Splits a logical line into its (still escaped) key and value. */
function splitEntry(logical: string): { key: string; value: string } {
  let i = 0;
  while (isBlank(logical[i])) i++;
  let key = '';
  for (; i < logical.length; i++) {
    const c = logical[i];
    if (c === '\\') {
      key += c + (logical[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '=' || c === ':' || isBlank(c)) break;
    key += c;
  }
  while (isBlank(logical[i])) i++;
  if (logical[i] === '=' || logical[i] === ':') i++;
  while (isBlank(logical[i])) i++;
  return { key: unescape(key), value: unescape(logical.slice(i)) };
}

function parse(text: string): Block[] {
  const lines = physicalLines(text);
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const content = stripEnding(lines[i]);
    const trimmed = content.replace(/^[ \t\f]+/, '');
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) {
      blocks.push({ kind: 'other', raw: lines[i] });
      continue;
    }
    let raw = lines[i];
    let logical = trimmed;
    while (endsWithContinuation(logical) && i + 1 < lines.length) {
      logical = logical.slice(0, -1) + stripEnding(lines[++i]).replace(/^[ \t\f]+/, '');
      raw += lines[i];
    }
    if (endsWithContinuation(logical)) logical = logical.slice(0, -1);
    blocks.push({ kind: 'entry', ...splitEntry(logical), raw });
  }
  return blocks;
}

function escape(text: string, isKey: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const code = c.charCodeAt(0);
    if (c === '\\') out += '\\\\';
    else if (c === '\t') out += '\\t';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\f') out += '\\f';
    else if ((isKey || i === 0) && c === ' ') out += '\\ ';
    else if (isKey && (c === '=' || c === ':')) out += '\\' + c;
    else if (i === 0 && (c === '#' || c === '!')) out += '\\' + c;
    else if (code < 0x20 || code > 0x7e) out += '\\u' + code.toString(16).padStart(4, '0');
    else out += c;
  }
  return out;
}

export class PropertiesFile {
  private constructor(private readonly blocks: Block[], private readonly newline: string) {}

  static parse(text: string): PropertiesFile {
    const newline = /\r\n/.test(text) ? '\r\n' : '\n';
    return new PropertiesFile(parse(text), newline);
  }

  /** Effective values: the last definition of a key wins, as in Java. */
  values(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const b of this.blocks) if (b.kind === 'entry') out[b.key] = b.value;
    return out;
  }

  get(key: string): string | undefined {
    return this.values()[key];
  }

  /** Sets a key in place (its last definition; earlier duplicates go), or appends it. */
  set(key: string, value: string): void {
    const line = `${escape(key, true)}=${escape(value, false)}`;
    const indexes = this.blocks.flatMap((b, i) => (b.kind === 'entry' && b.key === key ? [i] : []));
    if (indexes.length === 0) {
      const last = this.blocks.at(-1);
      if (last && !/[\r\n]$/.test(last.raw)) last.raw += this.newline;
      this.blocks.push({ kind: 'entry', key, value, raw: line + this.newline });
      return;
    }
    const target = indexes[indexes.length - 1];
    const old = this.blocks[target];
    const ending = /\r\n$/.test(old.raw) ? '\r\n' : /[\r\n]$/.test(old.raw) ? old.raw.slice(-1) : '';
    if (old.kind === 'entry' && old.value === value) return;
    this.blocks[target] = { kind: 'entry', key, value, raw: line + ending };
    for (const i of indexes.slice(0, -1).reverse()) this.blocks.splice(i, 1);
  }

  remove(key: string): void {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i];
      if (b.kind === 'entry' && b.key === key) this.blocks.splice(i, 1);
    }
  }

  toString(): string {
    return this.blocks.map((b) => b.raw).join('');
  }
}

/** Keys Cairn owns in server.properties; operators may not set them. */
export function isManagedProperty(key: string): boolean {
  return key === 'server-port' || key === 'server-ip' || key === 'enable-rcon' || key.startsWith('rcon.')
    || key === 'enable-query' || key === 'query.port';
}
