import type { Command } from 'commander';
import type { ArchiveJob, FileCompress, FileExtract, ServerItem } from '../api-types.js';
import { waitForJob } from '../archive-job.js';
import { connect, print, withGlobals } from '../context.js';
import { parseDuration } from '../duration.js';
import { CliError } from '../errors.js';
import { document, type Format } from '../output.js';
import { resolveServer } from '../resolve.js';

/** How far the job got, in the words of the summary line. */
const amount = (job: ArchiveJob) => `${job.entries ?? 0} entr${job.entries === 1 ? 'y' : 'ies'}, ${job.bytes ?? 0} byte${job.bytes === 1 ? '' : 's'}`;

/**
 * Prints a finished job: `-o json|yaml` the job as the API sent it, `-o name` `job/<id>`, else one
 * line. A FAILED job is exit 1 with its error (naming the refused entry), and what an extract had
 * put in place before it failed listed on stderr.
 */
function report(job: ArchiveJob, server: ServerItem, done: string, format: Format): void {
  if (job.state === 'FAILED') {
    if (job.written && job.written.length > 0) process.stderr.write(`written before it failed: ${job.written.join(', ')}\n`);
    throw new CliError(`${job.kind.toLowerCase()} of ${server.name}:${job.path} failed: ${job.error ?? 'no reason given'}`);
  }
  if (format === 'json' || format === 'yaml') print(document(job, format));
  else if (format === 'name') print(`job/${job.id}\n`);
  else print(`${done}: ${amount(job)}\n`);
}

const timeoutFlag = ['--timeout <duration>', 'how long to wait for the job (it goes on in the Controller after)', '30m'] as const;

/** `cairn extract` and `cairn compress`: each starts an archive job (202) and follows it to its end. */
export function registerArchives(program: Command): void {
  withGlobals(program.command('extract'))
    .description('extract an archive (zip, tar, tar.gz, tar.zst) on a server, and wait for it')
    .argument('<name>', 'a server name or id')
    .argument('<path>', 'the archive, relative to the server\'s root')
    .option('--into <dir>', 'the directory to extract into, made when missing (default: the archive\'s own directory)')
    .option(...timeoutFlag)
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (name: string, path: string, opts: { into?: string; timeout: string; team?: string }, cmd: Command) => {
      const timeoutMs = parseDuration(opts.timeout);
      const { client, format } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const request: FileExtract = { path, ...(opts.into === undefined ? {} : { into: opts.into }) };
      const started = await client.post<ArchiveJob>(`/servers/${server.id}/files/extract`, request);
      const job = await waitForJob(client, server.id, started, timeoutMs);
      report(job, server, `extracted ${server.name}:${job.path} into ${server.name}:${job.into}`, format);
    });

  withGlobals(program.command('compress'))
    .description('write an archive (zip, tar, tar.gz) of files and folders of a server, and wait for it')
    .argument('<name>', 'a server name or id')
    .argument('<paths...>', 'files and folders to put in it, relative to the server\'s root')
    .requiredOption('--into <archive>', 'the archive to write (.zip, .tar, .tar.gz or .tgz); it must not exist')
    .option(...timeoutFlag)
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (name: string, paths: string[], opts: { into: string; timeout: string; team?: string }, cmd: Command) => {
      const timeoutMs = parseDuration(opts.timeout);
      const { client, format } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const request: FileCompress = { paths, into: opts.into };
      const started = await client.post<ArchiveJob>(`/servers/${server.id}/files/compress`, request);
      const job = await waitForJob(client, server.id, started, timeoutMs);
      report(job, server, `compressed ${paths.map((p) => `${server.name}:${p}`).join(', ')} into ${server.name}:${job.into}`, format);
    });
}
