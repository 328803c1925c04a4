import type { ControllerSlot, FaultCluster } from './fault-cluster.js';
import type { FaultWatcher } from './fault-traffic.js';
import { waitFor } from './wait-for.js';

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
  /** From the fault's start until every Node was driven again by a Controller that is up. */
  controlBackMs: number;
  /** How long the Controller was stopped: an Agent linked to it waits for it that long (its keepalive notices a silent peer after 35 s only). */
  pausedMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Breaks Controllers of the cluster, one worker per slot at once, never leaving none up: each
 * worker picks a kind at random, injects it, and times until every Node is driven again. After a
 * fault its slot's watcher opens its stream again from its last id.
 */
export class FaultInjector {
  readonly faults: FaultRecord[] = [];
  private injected = 0;

  constructor(private readonly cluster: FaultCluster, private readonly watchers: FaultWatcher[], private readonly log: (line: string) => void = () => undefined) {}

  /** Runs until `count` faults have been injected and each has its control back. */
  async run(count: number, controlBackTimeoutMs: number): Promise<void> {
    await Promise.all(this.cluster.slots.map((slot) => this.worker(slot, count, controlBackTimeoutMs)));
  }

  private async worker(slot: ControllerSlot, count: number, controlBackTimeoutMs: number): Promise<void> {
    // Workers start a little apart so their faults overlap in varied ways.
    await pause(slot.index * 700);
    while (this.injected < count) {
      // Another Controller must stay up (checked and claimed in one synchronous step).
      if (!this.cluster.slots.some((s) => s !== slot && s.state === 'up')) {
        await pause(100);
        continue;
      }
      this.injected++;
      const kind = faultKinds[Math.floor(Math.random() * faultKinds.length)];
      const started = Date.now();
      const pausedMs = kind === 'long-stop' ? 2 * this.ttlMs : kind === 'short-stop' ? this.ttlMs / 2 : 0;
      const fault = this.inject(slot, kind, pausedMs);
      const back = waitFor(() => this.cluster.allDriven(), { timeoutMs: controlBackTimeoutMs, intervalMs: 100, what: `every Node driven again after ${kind} of Controller ${slot.index}` })
        .then(() => Date.now() - started);
      await fault;
      const controlBackMs = await back;
      await this.watchers[slot.index].open();
      this.faults.push({ kind, slot: slot.index, controlBackMs, pausedMs });
      this.log(`fault ${this.faults.length}: ${kind} of Controller ${slot.index}, control back after ${controlBackMs} ms`);
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
