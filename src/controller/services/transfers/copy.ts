import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { eachFile } from './pipelined.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { StageSink } from './stage-sink.js';

/**
 * Copies entries of a snapshot into a stage, Node to Controller to Node: directories first (in
 * manifest order, a parent before what it holds), then the files, a few at once, each read ahead
 * by one range and written a chunk at a time. Answers the bytes copied.
 */
export async function copyEntries(source: SnapshotSource, sink: StageSink, entries: readonly ManifestEntry[], expectManifest: boolean): Promise<number> {
  for (const entry of entries) if (entry.type === 'DIRECTORY') await sink.directory(entry);
  let bytes = 0;
  await eachFile(entries.filter((e) => e.type !== 'DIRECTORY'), async (entry) => {
    const written = await sink.writeFile(entry, source.read(entry), expectManifest);
    bytes += written;
  });
  return bytes;
}
