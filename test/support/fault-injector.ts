import type { ControllerSlot, FaultCluster } from './fault-cluster.js';
import type { FaultWatcher } from './fault-traffic.js';

/**
 * - `kill`: SIGKILL, then a new process with the same flags.
 * - `long-stop`: SIGSTOP for twice the lease's time to live (the 30 s at the default 15 s), then SIGCONT.
 * - `short-stop`: SIGSTOP for half the time to live, then SIGCONT.
 * - `restart`: SIGTERM (a clean stop: leases handed back), then a new process.
 */
export const faultKinds = ['kill', 'long-stop', 'short-stop', 'restart'] as const;
export type FaultKind = (typeof faultKinds)[number];

export interface FaultRecord {
  kind: FaultKind;
  slot: number;
  /** The Nodes the Controller drove when the fault began. */
  nodes: number;
  /** From the fault's start until each of its Nodes was driven again by a Controller that is up (0 when it drove none). */
  controlBackMs: number;
  /** How long the Controller was stopped (its Agents leave it after their silence limit, half the lease, without waiting for the thaw). */
  pausedMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Breaks Controllers of the cluster, one worker per slot at once: each worker draws a kind at
 * random, injects it once the others allow (see `worker`), and times until the Nodes its
 * Controller drove are driven again. After a fault its slot's watcher opens its stream again from
 * its last id.
 */
export class FaultInjector {
  readonly faults: FaultRecord[] = [];
  /** Control that did not come back in time: the run ends at the first, and the outcome is still summed up. */
  readonly timeouts: string[] = [];
  private injected = 0;

  constructor(private readonly cluster: FaultCluster, private readonly watchers: FaultWatcher[], private readonly log: (line: string) => void = () => undefined) {}

  /** Runs until `count` faults have been injected and each has its control back, or one has not within the timeout. */
  async run(count: number, controlBackTimeoutMs: number): Promise<void> {
    await Promise.all(this.cluster.slots.map((slot) => this.worker(slot, count, controlBackTimeoutMs)));
  }

  private async worker(slot: ControllerSlot, count: number, controlBackTimeoutMs: number): Promise<void> {
    // Workers start a little apart so their faults overlap in varied ways.
    await pause(slot.index * 700);
    // A stop may overlap any fault of another Controller as long as one stays up; a kill or restart (a process gone until
    // its relaunch has started, seconds on a busy machine) only while both others are up, so some Controller can always drive.
    const others = this.cluster.slots.filter((s) => s !== slot);
    const mayInject = (kind: FaultKind) => (kind === 'kill' || kind === 'restart' ? others.every((s) => s.state === 'up') : others.some((s) => s.state === 'up'));
    let drawn: FaultKind | undefined;
    while (this.injected < count && this.timeouts.length === 0) {
      // Drawn once and kept until it may go in, so the harder kinds are not drawn less often.
      drawn ??= faultKinds[Math.floor(Math.random() * faultKinds.length)];
      if (!mayInject(drawn)) {
        await pause(100);
        continue;
      }
      // Its Nodes, as a probe just now found them (one cut short by another fault leaves the last finding).
      await this.cluster.allDriven().catch(() => false);
      // Checked again after the probe, in one synchronous step with the injection.
      if (!mayInject(drawn)) continue;
      const kind = drawn;
      drawn = undefined;
      this.injected++;
      const nodes = this.cluster.hosts.filter((h) => this.cluster.lastHolder.get(h.nodeId) === slot.index);
      const started = Date.now();
      const pausedMs = kind === 'long-stop' ? 2 * this.ttlMs : kind === 'short-stop' ? this.ttlMs / 2 : 0;
      const fault = this.inject(slot, kind, pausedMs);
      const back = this.untilEachDriven(nodes, started + controlBackTimeoutMs, `its ${nodes.length} Nodes driven again after ${kind} of Controller ${slot.index}`)
        .then(() => Date.now() - started);
      await fault;
      const result = await back.then((ms) => ({ ms, timeout: undefined }), (e: unknown) => ({ ms: Date.now() - started, timeout: (e as Error).message }));
      const controlBackMs = result.ms;
      this.faults.push({ kind, slot: slot.index, nodes: nodes.length, controlBackMs, pausedMs });
      if (result.timeout !== undefined) {
        this.timeouts.push(result.timeout);
        return;
      }
      await this.watchers[slot.index].open();
      this.log(`fault ${this.faults.length}: ${kind} of Controller ${slot.index} (${nodes.length} Nodes) at ${new Date(started).toISOString()}, control back after ${controlBackMs} ms`);
      // The pace: this slot's next fault once every Node is driven again. Without it a Controller that
      // drove nothing was broken again at once, and back-to-back restarts alone kept the machine busy.
      const settled = await this.untilDriven(this.cluster.hosts, Date.now() + controlBackTimeoutMs, `every Node driven again after ${kind} of Controller ${slot.index}`)
        .then(() => undefined, (e: unknown) => (e as Error).message);
      if (settled !== undefined) {
        this.timeouts.push(settled);
        return;
      }
    }
  }

  /**
   * Asks whether the fault's Nodes are driven each time a process says a link or lease changed
   * (and each second besides). A fault of a Controller that drove no Node has nothing to wait for;
   * its stop still costs the others nothing to take over.
   */
  private async untilDriven(nodes: FaultCluster['hosts'], deadline: number, what: string): Promise<void> {
    if (nodes.length === 0) return;
    for (;;) {
      const seen = this.cluster.changes;
      // A probe cut by a fault (a Controller killed under it) says nothing.
      if (await this.cluster.allDriven(nodes).catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${[...this.cluster.notDriven.values()].join('; ')}`);
      await this.cluster.changeAfter(seen, 1_000);
    }
  }

  /**
   * Control back: until each of the faulted Controller's Nodes has been seen driven by a Controller
   * that is up, each at its own time. A Node back, then taken away by a later fault of its new
   * holder, is that fault's to time: it no longer holds this one's figure back.
   */
  private async untilEachDriven(nodes: FaultCluster['hosts'], deadline: number, what: string): Promise<void> {
    const pending = new Set(nodes);
    for (;;) {
      const seen = this.cluster.changes;
      for (const host of await this.cluster.drivenNow([...pending]).catch(() => [])) pending.delete(host);
      if (pending.size === 0) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${[...this.cluster.notDriven.values()].join('; ')}`);
      await this.cluster.changeAfter(seen, 1_000);
    }
  }

  private get ttlMs(): number {
    return this.cluster.leaseTtlSeconds * 1000;
  }

  private async inject(slot: ControllerSlot, kind: FaultKind, pausedMs: number): Promise<void> {
    const { child } = slot.process;
    switch (kind) {
      case 'kill':
      case 'restart':
        slot.state = 'down';
        await slot.process.kill(kind === 'kill' ? 'SIGKILL' : 'SIGTERM');
        await this.cluster.relaunch(slot);
        break;
      case 'long-stop':
      case 'short-stop':
        slot.state = 'stopped';
        child.kill('SIGSTOP');
        await pause(pausedMs);
        child.kill('SIGCONT');
        break;
    }
    slot.state = 'up';
  }
}
