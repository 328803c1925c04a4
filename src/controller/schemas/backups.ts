import Type from 'typebox';
import { DateTime, Uuid, pageQueryFields, PrintableName } from './common.js';
import { SoftwareSchema } from './servers.js';

export const backupTriggers = ['MANUAL', 'SCHEDULED', 'PRE_RESTORE', 'PRE_MIGRATE', 'PRE_UPDATE'] as const;
export const backupStates = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export const destinationKinds = ['NODE_DIRECTORY', 'CONTROLLER', 'S3'] as const;

export const BackupParams = Type.Object({ backupId: Uuid }, { additionalProperties: false });

export const BackupDestination = Type.Object({
  id: Uuid,
  name: Type.String(),
  kind: Type.Enum(destinationKinds),
  path: Type.Optional(Type.String({ description: 'NODE_DIRECTORY: the absolute directory on the Node that takes each backup.' })),
  endpoint: Type.Optional(Type.String({ description: 'S3: where the S3 API answers.' })),
  region: Type.Optional(Type.String({ description: 'S3: the bucket\'s region.' })),
  bucket: Type.Optional(Type.String({ description: 'S3: the bucket.' })),
  prefix: Type.Optional(Type.String({ description: 'S3: the key prefix every object is under (`<prefix>/<teamId>/`); empty for the bucket\'s root.' })),
  accessKeyId: Type.Optional(Type.String({ description: 'S3: the access key the Controller signs with (its secret is never shown).' })),
  forcePathStyle: Type.Optional(Type.Boolean({ description: 'S3: path-style requests (`<endpoint>/<bucket>/<key>`), as MinIO and most S3-compatible servers need.' })),
  createdAt: DateTime,
});

const S3AccessKeyId = (description: string) => Type.String({ minLength: 1, maxLength: 256, pattern: '^[\\x21-\\x7e]+$', description });
const S3SecretAccessKey = (description: string) => Type.String({ minLength: 1, maxLength: 1024, pattern: '^[\\x21-\\x7e]+$', description });

export const CreateDestination = Type.Object({
  name: PrintableName(100),
  kind: Type.Enum(destinationKinds),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Absolute; only and always for NODE_DIRECTORY.' })),
  endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'S3 (required): the http or https URL of the S3 API, e.g. https://s3.eu-west-1.amazonaws.com or http://minio.internal:9000.' })),
  region: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'S3 (required): the bucket\'s region (us-east-1 for most S3-compatible servers).' })),
  bucket: Type.Optional(Type.String({ minLength: 3, maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$', description: 'S3 (required): an existing bucket.' })),
  prefix: Type.Optional(Type.String({ maxLength: 512, pattern: '^[A-Za-z0-9!_.*\'()/-]*$', description: 'S3: the key prefix objects go under (default: the bucket\'s root).' })),
  accessKeyId: Type.Optional(S3AccessKeyId('S3 (required): the access key id.')),
  secretAccessKey: Type.Optional(S3SecretAccessKey('S3 (required): the secret access key; kept encrypted, never returned.')),
  forcePathStyle: Type.Optional(Type.Boolean({ description: 'S3: path-style requests (default false; MinIO needs true).' })),
}, { additionalProperties: false });

export const UpdateDestination = Type.Object({
  accessKeyId: Type.Optional(S3AccessKeyId('The new access key id (default: the one it has).')),
  secretAccessKey: S3SecretAccessKey('The new secret access key; kept encrypted, never returned.'),
}, { additionalProperties: false });

export const BackupPlugin = Type.Object({
  pluginId: Type.String(),
  name: Type.String(),
  version: Type.String(),
  catalogVersionId: Type.Optional(Type.String()),
});

export const Backup = Type.Object({
  id: Uuid,
  serverId: Uuid,
  destinationId: Uuid,
  nodeId: Uuid,
  scheduleId: Type.Optional(Uuid),
  trigger: Type.Enum(backupTriggers),
  state: Type.Enum(backupStates),
  sizeBytes: Type.Integer({ format: 'int64', minimum: 0, description: 'Bytes of every file of the backup.' }),
  storedBytes: Type.Integer({ format: 'int64', minimum: 0, description: 'Bytes the backup added to its destination (content no earlier backup there had, compressed): its incremental cost.' }),
  fileCount: Type.Integer({ minimum: 0 }),
  software: SoftwareSchema,
  plugins: Type.Array(BackupPlugin, { description: 'The server\'s plugin installations when the backup started; a restore installs them again.' }),
  error: Type.Optional(Type.String()),
  startedAt: DateTime,
  finishedAt: Type.Optional(DateTime),
});

export const TakeBackup = Type.Object({
  destinationId: Type.Optional(Uuid),
}, { additionalProperties: false });

export const RestoreBackup = Type.Object({
  serverId: Type.Optional(Type.String({ format: 'uuid', description: 'Restore into this other server of the same template (global administrators restoring a deleted server\'s backup).' })),
}, { additionalProperties: false });

export const BackupListQuery = Type.Object({
  ...pageQueryFields,
  serverId: Type.Optional(Uuid),
  state: Type.Optional(Type.Enum(backupStates)),
}, { additionalProperties: false });

export const ServerBackupListQuery = Type.Object(pageQueryFields, { additionalProperties: false });

export const BackupSchedule = Type.Object({
  id: Uuid,
  serverId: Uuid,
  cron: Type.String(),
  destinationId: Uuid,
  retain: Type.Integer({ minimum: 1, maximum: 100 }),
  nextRunAt: DateTime,
  lastRunAt: Type.Optional(DateTime),
  createdAt: DateTime,
});

export const CreateSchedule = Type.Object({
  cron: Type.String({ minLength: 1, maxLength: 200, description: 'Five fields (minute hour day-of-month month day-of-week), evaluated in UTC.' }),
  destinationId: Type.Optional(Uuid),
  retain: Type.Integer({ minimum: 1, maximum: 100, description: 'How many SCHEDULED backups of this schedule are kept.' }),
}, { additionalProperties: false });
