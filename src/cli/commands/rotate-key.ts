import type { Command } from 'commander';
import type { BackupDestination, UpdateBackupDestination } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { notFound, UsageError } from '../errors.js';
import { formatDone } from '../output.js';
import { readLineFromStdin } from '../read-secret.js';

interface RotateOptions {
  accessKeyId?: string;
  secretAccessKeyStdin?: boolean;
}

/** `cairn rotate-key DESTINATION`: an S3 destination's new key, checked before it replaces the old one; its backups stay where they are. */
export function registerRotateKey(program: Command): void {
  withGlobals(program.command('rotate-key'))
    .description('give an S3 backup destination a new key (global administrators); checked (an object written, read and deleted) before it replaces the old one')
    .argument('<destination>', 'the destination\'s name or id')
    .option('--access-key-id <id>', 'the new access key id (default: the current one)')
    .option('--secret-access-key-stdin', 'read the new secret access key from stdin (required)')
    .action(async (ref: string, opts: RotateOptions, cmd: Command) => {
      if (!opts.secretAccessKeyStdin) throw new UsageError('--secret-access-key-stdin is required: pipe the new secret access key in');
      const secretAccessKey = await readLineFromStdin();
      const { client, format } = await connect(cmd);
      const destinations = await client.all<BackupDestination>('/backup-destinations');
      const found = destinations.find((d) => d.id === ref) ?? destinations.find((d) => d.name.toLowerCase() === ref.toLowerCase());
      if (!found) throw notFound('destination', ref);
      const body: UpdateBackupDestination = { secretAccessKey, ...(opts.accessKeyId === undefined ? {} : { accessKeyId: opts.accessKeyId }) };
      const updated = await client.call<BackupDestination>('PATCH', `/backup-destinations/${found.id}`, body);
      print(formatDone('destination', updated.body.name, 'key rotated', updated.body, format));
    });
}
