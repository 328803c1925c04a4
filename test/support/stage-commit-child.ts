/**
 * Runs one stage's commit (the swap) as an Agent would, printing "moved <n>" after each rename,
 * so a test can SIGKILL it at a known point. With CAIRN_PAUSE_AT=<n> it stops after the n-th
 * rename and waits to be killed, so the kill lands exactly there.
 * Usage: stage-commit-child.ts <dataDir> <stageId> <serverId>
 */
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { recordCommitted } from '../../src/agent/transfers/stage-commits.js';
import { stagesDir } from '../../src/agent/transfers/stages.js';
import { swapIn, swapPathsOf } from '../../src/agent/transfers/stage-swap.js';
import { serverRoot } from '../../src/agent/reconciler/server-paths.js';

const [dataDir, stageId, serverId] = process.argv.slice(2);
const pauseAt = Number(process.env.CAIRN_PAUSE_AT ?? -1);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes a line to stdout before returning. process.stdout cannot promise that: the test's stdout
 * is a socket, and once its buffer is full (a busy parent reads slowly) a write is queued for the
 * event loop, which the pause below never gives back: the line never left and nobody killed us.
 */
function writeLine(text: string): void {
  const bytes = Buffer.from(`${text}\n`);
  for (let sent = 0; sent < bytes.length;) {
    try {
      sent += writeSync(1, bytes, sent);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

await swapIn({
  serverId,
  paths: swapPathsOf(join(stagesDir(dataDir), stageId), serverRoot(dataDir, serverId)),
  committed: () => recordCommitted(dataDir, stageId, serverId),
  onMoved: (count) => {
    writeLine(`moved ${count}`);
    if (count === pauseAt) Atomics.wait(sleeper, 0, 0);
  },
});
writeLine('done');
