import type { ManifestEntry } from '../../shared/backup/manifest.js';
import type { ResponsePayload } from '../../shared/link/messages.js';
import type { RequestContext } from '../link/link-client.js';

/** Entries in one SnapshotManifest message at most. */
export const manifestPartEntries = 2000;
/** Bytes of entries in one message at most (paths may be long), well under the link's 4 MiB. */
const manifestPartBytes = 1024 * 1024;
/** A generous estimate of an entry's bytes beside its path (type, size, mode, sha256, framing). */
const entryOverhead = 100;

/** Splits a manifest into messages of bounded size, in order; an empty manifest is one empty part. */
export function manifestParts(entries: readonly ManifestEntry[]): ManifestEntry[][] {
  const parts: ManifestEntry[][] = [[]];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.path) + entryOverhead;
    const current = parts[parts.length - 1];
    if (current.length > 0 && (current.length === manifestPartEntries || bytes + size > manifestPartBytes)) {
      parts.push([entry]);
      bytes = size;
    } else {
      current.push(entry);
      bytes += size;
    }
  }
  return parts;
}

/** Sends every part but the last (`more` set) and returns the last, the handler's answer. */
export function answerManifest(entries: readonly ManifestEntry[], ctx: Pick<RequestContext, 'sendPart'>): ResponsePayload {
  const parts = manifestParts(entries);
  for (const part of parts.slice(0, -1)) ctx.sendPart({ payload: 'snapshotManifest', snapshotManifest: { entries: part } });
  return { payload: 'snapshotManifest', snapshotManifest: { entries: parts[parts.length - 1] } };
}
