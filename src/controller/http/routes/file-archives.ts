import { ArchiveJob, FileCompress, FileExtract, FileJobParams } from '../../schemas/file-archives.js';
import { FilePathQuery } from '../../schemas/operations.js';
import { ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

const refused = 'An entry named with `..` or an absolute path, holding NUL or control characters, a link (symbolic or hard) or a device, FIFO or other special file fails the job naming the entry; nothing is written outside the root.';
const disk = 'The bytes written are counted against the server\'s disk limit (`resources.diskBytes`) and the disk\'s free space: a zip\'s declared sizes are summed before anything is written, and every archive is counted again as it inflates (a zip bomb is refused without being written).';
const asJob = 'Answers 202 with the job at once; `GET /servers/{serverId}/files/jobs/{jobId}` shows its progress and result. Needs `files.write` and `files.read`. Audited with the paths and the job id. Refused with `phase_busy` while the server\'s files are being moved or replaced.';

export const fileArchiveRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/servers/{serverId}/files/extract', tag: 'files', status: 202,
    summary: 'Extract an archive (zip, tar, tar.gz, tar.zst) inside the server\'s root, as a job.',
    description: `Each file is written to a temporary name and renamed into place when whole, as the server's own user when games run as their own users; the server may be running. Existing files of the same name are replaced. ${refused} ${disk} ${asJob}`,
    params: ServerParams, body: FileExtract, response: ArchiveJob, errors: ['phase_busy', 'node_unavailable'],
    audit: { action: 'server.file.extract', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.archiveJobs.extract(caller, params.serverId, body, audit),
  }),
  route({
    method: 'POST', path: '/servers/{serverId}/files/compress', tag: 'files', status: 202,
    summary: 'Write an archive (zip, tar, tar.gz) of files and directories of the server, as a job.',
    description: `Symlinks inside the sources, special files, \`.cairn\` and the forwarding secret's file are left out. The archive is written to a temporary name and renamed into place when whole; \`into\` must not exist. ${disk} ${asJob}`,
    params: ServerParams, body: FileCompress, response: ArchiveJob, errors: ['phase_busy', 'node_unavailable'],
    audit: { action: 'server.file.compress', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => s.archiveJobs.compress(caller, params.serverId, body, audit),
  }),
  route({
    method: 'GET', path: '/servers/{serverId}/files/jobs/{jobId}', tag: 'files', status: 200,
    summary: 'An archive job: RUNNING, SUCCEEDED or FAILED (with the error and, for an extract, what it had written).',
    description: 'Jobs are kept in the Controller\'s memory (the last 1,000); a Controller restart forgets them. Needs `files.read`.',
    params: FileJobParams, response: ArchiveJob,
    handler: async ({ caller, params }) => s.archiveJobs.get(caller, params.serverId, params.jobId),
  }),
  route({
    method: 'GET', path: '/servers/{serverId}/files/archive', tag: 'files', status: 200, stream: 'application/zip',
    summary: 'Download a directory as a zip, made as it is read.',
    description: 'Streamed from the Agent as the client reads it (no Content-Length). Symlinks, special files, `.cairn` and the forwarding secret\'s file are left out. Needs `files.read`.',
    params: ServerParams, query: FilePathQuery, errors: ['node_unavailable'],
    handler: async ({ caller, params, query, ctx }) => {
      const body = await s.archiveDownloads.zip(caller, params.serverId, query.path);
      const name = query.path.split('/').filter((p) => p && p !== '.').pop() ?? 'files';
      ctx.status = 200;
      ctx.body = body;
      ctx.type = 'application/zip';
      ctx.set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(`${name}.zip`)}`);
    },
  }),
];
