/**
 * Runs one stage's commit (the swap) as an Agent would, printing "moved <n>" after each rename,
 * so a test can SIGKILL it at a known point. With CAIRN_PAUSE_AT=<n> it stops after the n-th
 * rename and waits to be killed, so the kill lands exactly there.
 * Usage: stage-commit-child.ts <dataDir> <stageId> <serverId>
 */
import { join } from 'node:path';
import { recordCommitted } from '../../src/agent/operations/stage-commits.js';
import { stagesDir } from '../../src/agent/operations/stages.js';
import { swapIn, swapPathsOf } from '../../src/agent/operations/stage-swap.js';
import { serverRoot } from '../../src/agent/reconciler/server-paths.js';

const [dataDir, stageId, serverId] = process.argv.slice(2);
const pauseAt = Number(process.env.CAIRN_PAUSE_AT ?? -1);

await swapIn({
  serverId,
  paths: swapPathsOf(join(stagesDir(dataDir), stageId), serverRoot(dataDir, serverId)),
  committed: () => recordCommitted(dataDir, stageId, serverId),
  onMoved: (count) => {
    // A pipe's writes are synchronous on Linux: the line is out before the pause.
    process.stdout.write(`moved ${count}\n`);
    if (count === pauseAt) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  },
});
process.stdout.write('done\n');
