import Type, { type Static } from 'typebox';
import { Uuid } from './common.js';

/** Schemas of archive jobs (extract, compress) and folder downloads as zip. */

const relative = (what: string) => Type.String({ minLength: 1, maxLength: 4096, description: `${what}, relative to the server's root. \`..\`, absolute paths, NUL and symlinks leading outside are refused.` });

export const FileExtract = Type.Object({
  path: relative('The archive (.zip, .tar, .tar.gz or .tgz, .tar.zst or .tzst)'),
  into: Type.Optional(relative('The directory to extract into, made when missing; default: the archive\'s own directory')),
}, { additionalProperties: false });

export const FileCompress = Type.Object({
  paths: Type.Array(relative('A file or directory to put in the archive, named there by its last path element'), { minItems: 1, maxItems: 100 }),
  into: relative('The archive to write (.zip, .tar, .tar.gz or .tgz); it must not exist'),
}, { additionalProperties: false });

export const ArchiveJobKind = Type.Union([Type.Literal('EXTRACT'), Type.Literal('COMPRESS')]);
export const ArchiveJobState = Type.Union([Type.Literal('RUNNING'), Type.Literal('SUCCEEDED'), Type.Literal('FAILED')]);

export const ArchiveJob = Type.Object({
  id: Type.String(),
  kind: ArchiveJobKind,
  state: ArchiveJobState,
  path: Type.String({ description: 'EXTRACT: the archive; COMPRESS: the first of the paths put in it.' }),
  into: Type.String({ description: 'EXTRACT: the directory extracted into; COMPRESS: the archive written.' }),
  error: Type.Optional(Type.String({ description: 'Why it FAILED, naming the entry refused when one was.' })),
  bytes: Type.Optional(Type.Integer({ minimum: 0, description: 'Bytes written so far.' })),
  entries: Type.Optional(Type.Integer({ minimum: 0, description: 'Entries put in place so far.' })),
  written: Type.Optional(Type.Array(Type.String(), { description: 'A FAILED extract: the paths it had put in place (whole files only; at most 1,000 listed).' })),
}, { additionalProperties: false });
export type ArchiveJob = Static<typeof ArchiveJob>;

export const FileJobParams = Type.Object({
  serverId: Uuid,
  jobId: Uuid,
}, { additionalProperties: false });
