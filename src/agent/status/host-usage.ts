import { cpus, freemem, totalmem } from 'node:os';
import type { Condition, Resources } from '../../shared/link/messages.js';
import { diskSize } from './host-facts.js';

/** Below these shares of free space the Agent reports pressure, which makes the Node DEGRADED. */
export const pressureThresholds = { diskFreeRatio: 0.05, memoryFreeRatio: 0.05 };

interface CpuTimes {
  busy: number;
  total: number;
  cores: number;
}

/** One `cpus()` per sample: it reads /proc on the main thread. */
function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  const each = cpus();
  for (const cpu of each) {
    const t = cpu.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total, cores: each.length };
}

/**
 * Samples host usage for heartbeats: CPU as the busy share of all cores since the previous
 * sample (in thousandths of a core), memory in use, and the used bytes of the data dir's file
 * system; raises DISK_PRESSURE / MEMORY_PRESSURE conditions with a stable `since`.
 */
export class UsageSampler {
  private previous = cpuTimes();
  private readonly since = new Map<string, string>();

  constructor(private readonly dataDir: string, private readonly now: () => Date = () => new Date()) {}

  async sample(): Promise<{ usage: Resources; conditions: Condition[] }> {
    const current = cpuTimes();
    const dBusy = current.busy - this.previous.busy;
    const dTotal = current.total - this.previous.total;
    this.previous = current;
    const cpuMillis = dTotal > 0 ? Math.round((dBusy / dTotal) * current.cores * 1000) : 0;
    const total = totalmem();
    const free = freemem();
    const disk = await diskSize(this.dataDir);
    const conditions: Condition[] = [];
    if (disk.totalBytes > 0 && disk.availableBytes / disk.totalBytes < pressureThresholds.diskFreeRatio) {
      conditions.push(this.condition('disk-pressure', 'DISK_PRESSURE', `Only ${percent(disk.availableBytes, disk.totalBytes)} of the data dir's file system is free.`));
    }
    if (free / total < pressureThresholds.memoryFreeRatio) {
      conditions.push(this.condition('memory-pressure', 'MEMORY_PRESSURE', `Only ${percent(free, total)} of memory is available.`));
    }
    for (const id of [...this.since.keys()]) if (!conditions.some((c) => c.id === id)) this.since.delete(id);
    return { usage: { cpuMillis, memoryBytes: total - free, diskBytes: disk.usedBytes }, conditions };
  }

  private condition(id: string, reason: string, message: string): Condition {
    if (!this.since.has(id)) this.since.set(id, this.now().toISOString());
    return { id, reason, message, since: this.since.get(id)! };
  }
}

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;
