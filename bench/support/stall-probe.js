// Loaded with `--import` into the fleet bench's Controller and Agent processes: writes each
// event-loop stall, each GC pause and each fdatasync of 10 ms or more, with its wall-clock span,
// as a JSON line to $BENCH_STALL_DIR/<pid>.jsonl, so the bench can tell which late changes met
// which of them in which process. A timer every 5 ms that fires late is the stall; an fdatasync
// (the embedded store's durable appends wait for it) is timed by wrapping FileHandle's, up to when the
// main thread sees it done (so a stall of the main thread lengthens it too). Lines are
// written asynchronously, twice a second: a synchronous append waits for the file system's journal
// while another file is being synced, which stalled the very process it measured.
import { appendFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const dir = process.env.BENCH_STALL_DIR;
if (dir) {
  const file = join(dir, `${process.pid}.jsonl`);
  const thresholdMs = 10;
  const wall = (t) => performance.timeOrigin + t;
  let lines = '';
  const record = (kind, start, end) => {
    if (end - start >= thresholdMs) lines += `${JSON.stringify({ kind, start: wall(start), end: wall(end) })}\n`;
  };
  let writing = false;
  setInterval(() => {
    if (writing || !lines) return;
    writing = true;
    const text = lines;
    lines = '';
    appendFile(file, text).catch(() => undefined).finally(() => (writing = false));
  }, 500).unref();
  const tickMs = 5;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > tickMs + thresholdMs) record('stall', last + tickMs, now);
    last = now;
  }, tickMs).unref();
  const gcKinds = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) record(`gc ${gcKinds[entry.detail?.kind] ?? 'other'}`, entry.startTime, entry.startTime + entry.duration);
  }).observe({ entryTypes: ['gc'] });
  const handle = await open(process.execPath, 'r');
  const proto = Object.getPrototypeOf(handle);
  await handle.close();
  const datasync = proto.datasync;
  proto.datasync = async function timedDatasync() {
    const start = performance.now();
    try {
      return await datasync.call(this);
    } finally {
      record('fdatasync', start, performance.now());
    }
  };
}
