import type { Command } from 'commander';
import type { BackupDestination, CreateBackupDestination } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { UsageError } from '../errors.js';
import { formatDone } from '../output.js';
import { readLineFromStdin } from '../read-secret.js';

interface DestinationOptions {
  kind: string;
  path?: string;
  endpoint?: string;
  region?: string;
  bucket?: string;
  prefix?: string;
  accessKeyId?: string;
  secretAccessKeyStdin?: boolean;
  forcePathStyle?: boolean;
}

const kinds: Record<string, CreateBackupDestination['kind']> = { s3: 'S3', controller: 'CONTROLLER', 'node-directory': 'NODE_DIRECTORY' };

/** The request body; an S3 secret comes from stdin only, so it never sits in shell history or `ps`. */
async function destinationBody(name: string, opts: DestinationOptions): Promise<CreateBackupDestination> {
  const kind = kinds[opts.kind.toLowerCase()] as CreateBackupDestination['kind'] | undefined;
  if (!kind) throw new UsageError(`--kind must be one of ${Object.keys(kinds).join(', ')}`);
  if (kind !== 'S3') return { name, kind, ...(opts.path === undefined ? {} : { path: opts.path }) };
  const missing = (['endpoint', 'region', 'bucket', 'accessKeyId'] as const).filter((o) => opts[o] === undefined);
  if (missing.length > 0) throw new UsageError(`--kind s3 needs ${missing.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`);
  if (!opts.secretAccessKeyStdin) throw new UsageError('--secret-access-key-stdin is required with --kind s3: pipe the secret access key in');
  return {
    name, kind, endpoint: opts.endpoint, region: opts.region, bucket: opts.bucket, accessKeyId: opts.accessKeyId,
    secretAccessKey: await readLineFromStdin(), forcePathStyle: opts.forcePathStyle ?? false, ...(opts.prefix === undefined ? {} : { prefix: opts.prefix }),
  };
}

export function registerCreateDestination(create: Command): void {
  withGlobals(create.command('destination'))
    .description('create a backup destination (global administrators); an S3 one is checked (an object written, read and deleted) before it exists')
    .argument('<name>')
    .requiredOption('--kind <kind>', 's3, controller or node-directory')
    .option('--path <dir>', 'node-directory: the absolute directory on the Node')
    .option('--endpoint <url>', 's3: the S3 API, e.g. https://s3.eu-west-1.amazonaws.com or http://minio.internal:9000')
    .option('--region <region>', 's3: the bucket\'s region')
    .option('--bucket <bucket>', 's3: an existing bucket')
    .option('--prefix <prefix>', 's3: the key prefix objects go under')
    .option('--access-key-id <id>', 's3: the access key id')
    .option('--secret-access-key-stdin', 's3: read the secret access key from stdin (required)')
    .option('--force-path-style', 's3: path-style requests (MinIO and most S3-compatible servers)')
    .action(async (name: string, opts: DestinationOptions, cmd: Command) => {
      const body = await destinationBody(name, opts);
      const { client, format } = await connect(cmd);
      const created = await client.post<BackupDestination>('/backup-destinations', body);
      print(formatDone('destination', created.name, 'created', created, format));
    });
}
