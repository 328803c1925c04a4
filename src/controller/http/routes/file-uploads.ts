import { Upload, UploadBegin, UploadOffsetQuery, UploadParams } from '../../schemas/file-uploads.js';
import { ServerParams } from '../../schemas/servers.js';
import { maxUploadRequestBytes } from '../../services/files/upload-sessions.js';
import type { Services } from '../../services/index.js';
import { invalidRequest } from '../../core/errors.js';
import { route } from '../route.js';

const kept = 'The partial file lives on the Node outside the server\'s root (the game never sees it) and survives restarts of the Node\'s Agent and of the Controller; an upload not written to for 24 h (`expiresAt`) is swept.';
const inMotion = ' Refused with `phase_busy` while the server\'s files are being moved or replaced (MIGRATING, RESTORING, UPDATING, DELETING).';

export const fileUploadRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/servers/{serverId}/files/uploads', tag: 'files', status: 201,
    summary: 'Begin a resumable upload of a file of any size (up to what the disk limit leaves).',
    description: `For files over the 64 MiB of \`PUT /servers/{serverId}/files/content\` (smaller ones are accepted too). The path is checked as a write's (its directory must exist; \`.cairn\`, the forwarding secret's file and links leading out are refused, naming \`body.path\`). A \`size\` over what the server's disk limit (\`resources.diskBytes\`) leaves, counting uploads under way, or over the Node's free space is \`insufficient_storage\` naming \`body.size\`. ${kept} Needs \`files.write\`. Audited with the path, size and upload id.${inMotion}`,
    params: ServerParams, body: UploadBegin, response: Upload, errors: ['read_only', 'phase_busy', 'node_unavailable', 'insufficient_storage'],
    audit: { action: 'server.file.upload.begin', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.uploadSessions.begin(caller, params.serverId, body, audit),
  }),
  route({
    method: 'PUT', path: '/servers/{serverId}/files/uploads/{uploadId}', tag: 'files', status: 200,
    summary: 'Send the next bytes of an upload at `offset`; the last ones put the file in place.',
    description: 'The body (`application/octet-stream`, at most 64 MiB; send 8–16 MiB) is written at `offset`, which must be the upload\'s current offset: otherwise `upload_offset_mismatch` (409), whose problem carries `offset`, where to continue. Bytes past the upload\'s size are `too_large`. A body cut off keeps what reached the Node: `GET` tells the offset to continue from. '
      + 'When the upload holds all its bytes the file replaces the path atomically (as the server\'s own user when games run as their own users) and the answer has `completed: true`; the disk limit is checked again then, and a directory at the path is a `conflict` (send an empty body at `offset` = `size` to try again). '
      + `Audited as \`server.file.upload.append\` with the bytes written, or as \`server.file.write\` (path, size, upload id) by the request that completes the file.${inMotion}`,
    params: UploadParams, query: UploadOffsetQuery, response: Upload, rawBody: { mediaType: 'application/octet-stream', maxBytes: maxUploadRequestBytes },
    errors: ['read_only', 'too_large', 'conflict', 'upload_offset_mismatch', 'phase_busy', 'node_unavailable', 'insufficient_storage'],
    audit: { action: 'server.file.upload.append', targetKind: 'server' },
    handler: async ({ caller, params, query, ctx, audit, upload }) => {
      if (!ctx.request.is('application/octet-stream')) throw invalidRequest('Content-Type must be application/octet-stream.');
      const declared = ctx.get('content-length');
      return s.uploadSessions.append(caller, params.serverId, params.uploadId, query.offset, upload, declared === '' ? undefined : Number(declared), audit);
    },
  }),
  route({
    method: 'GET', path: '/servers/{serverId}/files/uploads/{uploadId}', tag: 'files', status: 200,
    summary: 'An upload: its offset (bytes the Node holds durably), size and expiry; `completed` once the file is in place.',
    description: `Unknown, cancelled or swept uploads are \`not_found\`; a completed one is shown until a day after it completed. ${kept} Needs \`files.write\`.`,
    params: UploadParams, response: Upload, errors: ['node_unavailable'],
    handler: async ({ caller, params }) => s.uploadSessions.get(caller, params.serverId, params.uploadId),
  }),
  route({
    method: 'DELETE', path: '/servers/{serverId}/files/uploads/{uploadId}', tag: 'files', status: 204,
    summary: 'Cancel an upload: its partial data is removed.',
    description: 'Unknown or swept uploads are `not_found`; a completed upload\'s file stays (only its record goes). Needs `files.write`. Audited with the upload id and path.',
    params: UploadParams, errors: ['node_unavailable'],
    audit: { action: 'server.file.upload.cancel', targetKind: 'server' },
    handler: async ({ caller, params, audit }) => s.uploadSessions.cancel(caller, params.serverId, params.uploadId, audit),
  }),
];
