import stringWidth from 'string-width';
import YAML from 'yaml';
import { UsageError } from './errors.js';

/** `-o`: kubectl's output formats. */
export const formats = ['table', 'wide', 'json', 'yaml', 'name'] as const;
export type Format = (typeof formats)[number];

export function parseFormat(text: string | undefined): Format {
  if (text === undefined) return 'table';
  if ((formats as readonly string[]).includes(text)) return text as Format;
  throw new UsageError(`unknown output format "${text}" (one of ${formats.join(', ')})`);
}

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | undefined;
  /** Shown only with `-o wide`. */
  wide?: boolean;
}

/** How one kind of thing is shown: its kubectl-style kind word, its name, its table columns. */
export interface View<T> {
  kind: string;
  plural: string;
  name: (item: T) => string;
  columns: Column<T>[];
}

/**
 * Columns padded to their widest cell, three spaces apart, as kubectl prints them; empty cells
 * read `<none>`. Widths are terminal columns, not UTF-16 units: a CJK character or an emoji
 * takes two, a combining mark none, so a name like `服务器` or `café` keeps the columns aligned.
 */
export function table(rows: string[][]): string {
  const widths = rows.length === 0 ? [] : rows[0].map((_, i) => Math.max(...rows.map((r) => stringWidth(r[i]))));
  const pad = (cell: string, width: number) => cell + ' '.repeat(width - stringWidth(cell));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : pad(cell, widths[i]))).join('   ').trimEnd() + '\n').join('');
}

const cell = (v: string | number | boolean | undefined) => (v === undefined || v === '' ? '<none>' : String(v));

/** The table rows of `items`, with the header first when `header`. */
export function rows<T>(view: View<T>, items: T[], wide: boolean, header = true): string[][] {
  const columns = view.columns.filter((c) => wide || !c.wide);
  const body = items.map((item) => columns.map((c) => cell(c.value(item))));
  return header ? [columns.map((c) => c.header), ...body] : body;
}

/** One document of JSON or YAML. */
export function document(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? JSON.stringify(value, null, 2) + '\n' : YAML.stringify(value);
}

/**
 * A list in `format`: JSON and YAML print `{items: [...]}` of what the API sent; `name` prints
 * `kind/name` lines; tables print nothing for an empty list (the caller says so on stderr).
 */
export function formatList<T>(view: View<T>, items: T[], format: Format): string {
  switch (format) {
    case 'json':
    case 'yaml':
      return document({ items }, format);
    case 'name':
      return items.map((i) => `${view.kind}/${view.name(i)}\n`).join('');
    default:
      return items.length === 0 ? '' : table(rows(view, items, format === 'wide'));
  }
}

/** One named thing: JSON and YAML print its detail as the API sent it. */
export function formatOne<T>(view: View<T>, item: T, format: Format): string {
  if (format === 'json' || format === 'yaml') return document(item, format);
  return formatList(view, [item], format);
}

/**
 * What a command that changed something prints: `kind/name <done>` (kubectl's
 * `pod/x created`), the API's answer with `-o json|yaml`, `kind/name` with `-o name`.
 */
export function formatDone(kind: string, name: string, done: string, answer: unknown, format: Format): string {
  if ((format === 'json' || format === 'yaml') && answer !== undefined) return document(answer, format);
  return format === 'name' ? `${kind}/${name}\n` : `${kind}/${name} ${done}\n`;
}
