import { createReadStream } from 'node:fs';
import { access, unlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { cutTornTail, type StoreRepair } from '../torn-tail.js';
import { parseLine } from './segment.js';
import type { AuditSegmentLog } from './segment-log.js';

/**
 * Moves the single-file audit log of earlier versions (`audit-events.jsonl`) into segments, ids and
 * times kept, then deletes it. Interrupted, it resumes: events the segments already hold are skipped.
 */
export async function importLegacyAuditFile(file: string, log: AuditSegmentLog, onRepair: (repair: StoreRepair) => void): Promise<number> {
  if (!(await access(file).then(() => true, () => false))) return 0;
  const cut = await cutTornTail(file);
  if (cut > 0) onRepair({ file, dropped: `a half-written last event (${cut} bytes)` });
  const unreadable: number[] = [];
  let lineNumber = 0;
  let imported = 0;
  let writes: Promise<void>[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNumber += 1;
    if (line.length === 0) continue;
    const event = parseLine(line);
    if (!event) {
      unreadable.push(lineNumber);
      continue;
    }
    const write = log.importEvent(event);
    if (write) {
      writes.push(write);
      imported += 1;
    }
    // Bounded memory: wait for the queued events every few thousand.
    if (writes.length >= 4096) {
      await Promise.all(writes);
      writes = [];
    }
  }
  await Promise.all(writes);
  if (unreadable.length > 0) onRepair({ file, dropped: `${unreadable.length} unreadable event line(s): ${unreadable.slice(0, 10).join(', ')}${unreadable.length > 10 ? ', …' : ''}` });
  await unlink(file);
  return imported;
}
