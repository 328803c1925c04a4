import type { BackupDestinationDoc, BackupDoc, BackupScheduleDoc } from '../../store/records.js';

/** The secret access key of an S3 destination never leaves the store, sealed or not. */
export const destinationView = (d: BackupDestinationDoc) => ({
  id: d._id, name: d.name, kind: d.kind, ...(d.path ? { path: d.path } : {}),
  ...(d.s3 ? { endpoint: d.s3.endpoint, region: d.s3.region, bucket: d.s3.bucket, prefix: d.s3.prefix, accessKeyId: d.s3.accessKeyId, forcePathStyle: d.s3.forcePathStyle } : {}),
  createdAt: d.createdAt,
});

/** The public record; the plugin installations it keeps for a restore show only what identifies them. */
export const backupView = (b: BackupDoc) => ({
  id: b._id, serverId: b.serverId, destinationId: b.destinationId, nodeId: b.nodeId,
  ...(b.scheduleId ? { scheduleId: b.scheduleId } : {}),
  trigger: b.trigger, state: b.state, sizeBytes: b.sizeBytes, storedBytes: b.storedBytes, fileCount: b.fileCount,
  software: b.software,
  plugins: b.plugins.map((p) => ({ pluginId: p.pluginId, name: p.name, version: p.version, ...(p.catalogVersionId ? { catalogVersionId: p.catalogVersionId } : {}) })),
  ...(b.error ? { error: b.error } : {}),
  startedAt: b.startedAt,
  ...(b.finishedAt ? { finishedAt: b.finishedAt } : {}),
});

export const scheduleView = (s: BackupScheduleDoc) => ({
  id: s._id, serverId: s.serverId, cron: s.cron, destinationId: s.destinationId, retain: s.retain,
  nextRunAt: s.nextRunAt, ...(s.lastRunAt ? { lastRunAt: s.lastRunAt } : {}), createdAt: s.createdAt,
});
