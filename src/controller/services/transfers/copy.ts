import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { StageSink } from './stage-sink.js';

/**
 * Copies entries of a snapshot into a stage, Node to Controller to Node, one file at a time with
 * one chunk in flight each way: the Controller holds a few MiB whatever the world's size.
 * Directories come first (the manifest lists a directory before what it holds). Answers the bytes copied.
 */
export async function copyEntries(source: SnapshotSource, sink: StageSink, entries: readonly ManifestEntry[], expectManifest: boolean): Promise<number> {
  let bytes = 0;
  for (const entry of entries) {
    if (entry.type === 'DIRECTORY') await sink.directory(entry);
    else bytes += await sink.writeFile(entry, source.read(entry), expectManifest);
  }
  return bytes;
}
