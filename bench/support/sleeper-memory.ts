import { Sleeper } from '../../src/agent/sleeper/sleeper.js';
import { rssBytes } from './process-rss.js';

/** Heap and RSS after a forced GC (twice: the first may leave garbage the second frees); no GC without `--expose-gc`. */
async function settled(): Promise<{ heap: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 2; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { heap: process.memoryUsage().heapUsed, rss: await rssBytes(process.pid) };
}

/**
 * What `count` idle Sleepers cost this process, each on a free loopback port with a status like
 * simcraft's: heap and RSS growth per sleeper, measured after forced GCs around opening them.
 */
export async function sleeperCost(count: number): Promise<{ heapPerSleeper: number; rssPerSleeper: number; gc: boolean }> {
  const status = { version: { name: '1.21.4', protocol: 769 }, maxPlayers: 20, description: 'A Minecraft Server' };
  const before = await settled();
  const sleepers: Sleeper[] = [];
  try {
    for (let i = 0; i < count; i++) sleepers.push(await Sleeper.listen({ port: 0, host: '127.0.0.1', status, onWake: () => undefined }));
    const after = await settled();
    return { heapPerSleeper: (after.heap - before.heap) / count, rssPerSleeper: (after.rss - before.rss) / count, gc: 'gc' in globalThis };
  } finally {
    await Promise.all(sleepers.map((s) => s.close()));
  }
}
