import { FileList, FileMove, FilePathQuery } from '../../schemas/operations.js';
import { ServerParams } from '../../schemas/servers.js';
import { maxFileBytes } from '../../services/files/file-transfer.js';
import type { Services } from '../../services/index.js';
import { invalidRequest } from '../../core/errors.js';
import { route } from '../route.js';

const pathRules = 'Paths are relative to the server\'s root; `..`, absolute paths, NUL or control characters, backslashes and symlinks leading outside are refused with `invalid_request`. '
  + 'The file holding the network\'s forwarding secret (the template\'s `network.forwardingSecret.file`, e.g. `config/paper-global.yml`) is never read, listed or written: `read_only`, for global administrators too.';
/** Why changes wait for READY: see services/files/file-changes.ts. */
const inMotion = ' Refused with `phase_busy` while the server is MIGRATING, RESTORING, UPDATING or DELETING: those move or replace its files, and a change made meanwhile could be lost.';

export const fileRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/servers/{serverId}/files', tag: 'files', status: 200,
    summary: 'List a directory of the server (`path=.` is its root), sorted by name.',
    description: `${pathRules} Symlinks show as what they point to when that is inside the root, and are left out otherwise. At most 10,000 entries.`,
    params: ServerParams, query: FilePathQuery, response: FileList, errors: ['read_only', 'node_unavailable'],
    handler: async ({ caller, params, query }) => s.files.list(caller, params.serverId, query.path),
  }),
  route({
    method: 'GET', path: '/servers/{serverId}/files/content', tag: 'files', status: 200, stream: 'application/octet-stream',
    summary: 'Download a file: its bytes as `application/octet-stream` with Content-Length.',
    description: `${pathRules} The file is streamed from the Agent as the client reads it.`,
    params: ServerParams, query: FilePathQuery, errors: ['read_only', 'node_unavailable'],
    handler: async ({ caller, params, query, ctx }) => {
      const { body, sizeBytes } = await s.files.read(caller, params.serverId, query.path);
      const name = query.path.split('/').filter(Boolean).pop() ?? 'file';
      ctx.status = 200;
      ctx.body = body;
      ctx.type = 'application/octet-stream';
      ctx.length = sizeBytes;
      ctx.set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
    },
  }),
  route({
    method: 'PUT', path: '/servers/{serverId}/files/content', tag: 'files', status: 204,
    summary: 'Create or replace a file in an existing directory (at most 64 MiB).',
    description: `${pathRules} The body streams to the Node in 1 MiB chunks into a temporary file that replaces the target only when complete. A Content-Length over 64 MiB, or a body that grows past it, is refused with \`too_large\` and nothing is written. \`.cairn\` is \`read_only\`. Audited with the path and size.${inMotion}`,
    params: ServerParams, query: FilePathQuery, rawBody: { mediaType: 'application/octet-stream', maxBytes: maxFileBytes },
    errors: ['read_only', 'too_large', 'phase_busy', 'node_unavailable', 'insufficient_storage'],
    audit: { action: 'server.file.write', targetKind: 'server' },
    handler: async ({ caller, params, query, ctx, audit, upload }) => {
      if (!ctx.request.is('application/octet-stream')) throw invalidRequest('Content-Type must be application/octet-stream.');
      const declared = ctx.get('content-length');
      await s.files.write(caller, params.serverId, query.path, upload, declared === '' ? undefined : Number(declared), audit);
    },
  }),
  route({
    method: 'DELETE', path: '/servers/{serverId}/files', tag: 'files', status: 204,
    summary: 'Delete a file, or a directory with everything in it.',
    description: `${pathRules} A symlink is removed itself, never what it points to. \`.cairn\` and the root itself cannot be deleted. Audited with the path.${inMotion}`,
    params: ServerParams, query: FilePathQuery, errors: ['read_only', 'phase_busy', 'node_unavailable'],
    audit: { action: 'server.file.delete', targetKind: 'server' },
    handler: async ({ caller, params, query, audit }) => s.files.delete(caller, params.serverId, query.path, audit),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/files/move', tag: 'files', status: 204,
    summary: 'Move or rename a file or directory within the server\'s root.',
    description: `${pathRules} Both paths are checked like a write's; refusals name \`body.from\` or \`body.to\`. A missing \`from\` (or directory of \`to\`) is \`not_found\`; an existing \`to\` is a \`conflict\` (nothing is replaced); a directory cannot move into itself. \`.cairn\`, the root, and the forwarding secret's file and the directories above it are refused on either side. Needs \`files.write\`. Audited with both paths.${inMotion}`,
    params: ServerParams, body: FileMove, errors: ['read_only', 'conflict', 'phase_busy', 'node_unavailable'],
    audit: { action: 'server.file.move', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.files.move(caller, params.serverId, body, audit),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/files/directories', tag: 'files', status: 201,
    summary: 'Create a directory; its parent must exist.',
    description: `${pathRules} An existing path is a \`conflict\`. Needs \`files.write\`. Audited with the path.${inMotion}`,
    params: ServerParams, query: FilePathQuery, errors: ['read_only', 'conflict', 'phase_busy', 'node_unavailable'],
    audit: { action: 'server.directory.create', targetKind: 'server' },
    handler: async ({ caller, params, query, audit }) => s.files.mkdir(caller, params.serverId, query.path, audit),
  }),
];
