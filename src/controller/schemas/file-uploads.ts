import Type, { type Static } from 'typebox';
import { DateTime, Uuid } from './common.js';

/** Schemas of resumable uploads: a file of any size up to the disk limit, sent in pieces. */

export const UploadBegin = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 4096, description: 'The file to write, relative to the server\'s root; its directory must exist. `..`, absolute paths, NUL and symlinks leading outside are refused.' }),
  size: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The file\'s size in bytes: the upload completes when it holds this many.' }),
}, { additionalProperties: false });

export const Upload = Type.Object({
  id: Uuid,
  serverId: Uuid,
  path: Type.String(),
  size: Type.Integer({ minimum: 0, format: 'int64' }),
  offset: Type.Integer({ minimum: 0, format: 'int64', description: 'Bytes the Node holds durably: where the next PUT continues.' }),
  createdAt: DateTime,
  expiresAt: Type.String({ format: 'date-time', description: 'The last write plus 24 h: after it the partial data is swept.' }),
  completed: Type.Optional(Type.Boolean({ description: 'True once the file was put in place (offset equals size).' })),
}, { additionalProperties: false });
export type Upload = Static<typeof Upload>;

export const UploadParams = Type.Object({
  serverId: Uuid,
  uploadId: Uuid,
}, { additionalProperties: false });

export const UploadOffsetQuery = Type.Object({
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Where the body goes: must equal the upload\'s offset.' }),
}, { additionalProperties: false });
