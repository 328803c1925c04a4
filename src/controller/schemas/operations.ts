import Type from 'typebox';
import { maxCommandBytes } from '../../shared/console-limits.js';
import { DateTime, Defaulted } from './common.js';

/** Schemas of what an operator does on a server: console, files, server.properties. */

/** Bounds and default of the console stream's `tail`. */
export const consoleTail = { min: 0, max: 1000, default: 100 } as const;

/** Longest property key, in characters (the properties service checks it too). */
export const maxPropertyKeyLength = 256;

export const ConsoleCommand = Type.Object({
  command: Type.String({
    minLength: 1, maxLength: maxCommandBytes,
    description: `One console line without the leading slash, 1 to ${maxCommandBytes} bytes of UTF-8, no line breaks or control characters.`,
  }),
}, { additionalProperties: false });

export const ConsoleQuery = Type.Object({
  tail: Defaulted(Type.Integer({
    minimum: consoleTail.min, maximum: consoleTail.max, default: consoleTail.default,
    description: `How many of the last lines to replay first, ${consoleTail.min} to ${consoleTail.max} (default ${consoleTail.default}).`,
  })),
}, { additionalProperties: false });

export const FilePathQuery = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 4096, description: 'Relative to the server\'s root; `.` is the root. `..`, absolute paths, NUL and symlinks leading outside are refused.' }),
}, { additionalProperties: false });

const movePath = (what: string) => Type.String({ minLength: 1, maxLength: 4096, description: `${what}, relative to the server's root. \`..\`, absolute paths, NUL and symlinks leading outside are refused.` });

export const FileMove = Type.Object({
  from: movePath('The file or directory to move (a symlink is moved itself)'),
  to: movePath('Its new path; it must not exist, its directory must'),
}, { additionalProperties: false });

export const FileItem = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'Relative to the server\'s root.' }),
  type: Type.Union([Type.Literal('FILE'), Type.Literal('DIRECTORY')]),
  sizeBytes: Type.Integer({ minimum: 0, description: '0 for directories.' }),
  modifiedAt: DateTime,
});

/** The answer to a console command: it was typed into the console; its output arrives on the stream. */
export const CommandSent = Type.Object({ sent: Type.Literal(true) });

export const FileList = Type.Object({ items: Type.Array(FileItem) });

export const PropertiesChange = Type.Record(
  Type.String(),
  Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]),
  { minProperties: 1, maxProperties: 100, description: `1 to 100 keys of 1 to ${maxPropertyKeyLength} characters; a value of at most 1024 characters sets the key, null removes it. A value that does not fit a key GET lists in known (pvp=nope) is refused with invalid_request naming body.<key>. Managed keys (server-port, server-ip, enable-rcon, rcon.*, enable-query, query.port, and for a network member its template's member settings such as online-mode) are refused with managed_property.` },
);

export const PropertyKind = Type.Union([
  Type.Object({ type: Type.Literal('boolean') }),
  Type.Object({ type: Type.Literal('integer'), minimum: Type.Integer(), maximum: Type.Integer() }),
  Type.Object({
    type: Type.Literal('enum'), values: Type.Array(Type.String()),
    numbered: Type.Optional(Type.Boolean({ description: 'The game also reads a value\'s position in `values` (e.g. `difficulty=2`).' })),
  }),
]);

export const PropertiesView = Type.Object({
  properties: Type.Record(Type.String(), Type.String()),
  known: Type.Record(Type.String(), PropertyKind, {
    description: 'The keys whose values Cairn checks, with what each takes (others take any text): clients offer a choice rather than repeat the rules.',
  }),
  managed: Type.Record(Type.String(), Type.String(), {
    description: 'The keys Cairn manages (refused with managed_property), each with why: those in the file, and a network member\'s member settings whether in the file or not.',
  }),
});

export const PropertiesChanged = Type.Object({
  properties: Type.Record(Type.String(), Type.String(), { description: 'The settings after the change.' }),
  appliesAtNextStart: Type.Literal(true),
});
