import type { Logger } from '../../../shared/logger.js';
import { fleetJobNames, type FleetJobName } from '../../domain/fleet-jobs.js';

/** A job that runs on one Controller of the fleet at a time: started where its lease is gained, stopped where it is lost. */
export interface FleetJob {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The fleet-wide jobs of this Controller and which of them run here. On the embedded store the
 * one Controller runs every job from its start (`startHere`, at the point of the start each job
 * always had); on MongoDB the membership starts a job when it gains the job's lease
 * (`fleet:<job>`) and stops it when it loses it. Starts and stops of one job run one after the
 * other, never overlapping, and never hold up the lease round that asked for them.
 */
export class FleetJobs {
  private readonly jobs = new Map<FleetJobName, FleetJob>();
  private readonly running = new Set<FleetJobName>();
  private readonly turns = new Map<FleetJobName, Promise<boolean>>();
  private closed = false;

  constructor(
    /** True on MongoDB: jobs run only where their lease is held. */
    readonly byLease: boolean,
    private readonly logger: Logger,
  ) {}

  register(name: FleetJobName, job: FleetJob): void {
    this.jobs.set(name, job);
  }

  /** The embedded store's Controller starts the job now (and waits for it); on MongoDB its lease decides. */
  async startHere(name: FleetJobName): Promise<void> {
    if (this.byLease || this.closed) return;
    this.running.add(name);
    // As before leases: a job that cannot start stops the Controller's start.
    await this.jobs.get(name)?.start();
  }

  /** Jobs running here now, in the order they are listed. */
  held(): FleetJobName[] {
    return fleetJobNames.filter((name) => this.running.has(name));
  }

  /**
   * The job's lease is this Controller's: the job starts, after any stop of it under way. Answers
   * false when it failed to start (logged): it does not run here, and its lease should go back.
   */
  async gained(name: FleetJobName): Promise<boolean> {
    if (this.closed) return false;
    if (this.running.has(name)) return this.turns.get(name) ?? true;
    this.running.add(name);
    this.logger.info({ event: 'fleet_job_gained', job: name }, `running the fleet-wide job ${name} here`);
    const started = await this.turn(name, (job) => job.start());
    if (!started) this.running.delete(name);
    return started;
  }

  /** The lease is lost (or the Controller stops): the job stops at once, after any start of it under way. */
  async lost(name: FleetJobName): Promise<void> {
    if (!this.running.delete(name)) {
      await this.turns.get(name);
      return;
    }
    // A shutdown's stop is expected: only a lease lost while running is worth a warning.
    if (this.closed) this.logger.info({ event: 'fleet_job_stopped', job: name }, `the fleet-wide job ${name} stopped for the shutdown`);
    else this.logger.warn({ event: 'fleet_job_lost', job: name }, `the fleet-wide job ${name} no longer runs here`);
    await this.turn(name, (job) => job.stop());
  }

  /** Every job stopped for the Controller's shutdown; none starts again, whatever leases it still holds until they are handed back. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(fleetJobNames.map((name) => this.lost(name)));
  }

  /** One start or stop of the job, after the one before it; answers whether it went through. */
  private turn(name: FleetJobName, step: (job: FleetJob) => Promise<void>): Promise<boolean> {
    const job = this.jobs.get(name);
    const previous = this.turns.get(name) ?? Promise.resolve(true);
    const next = previous.then(async () => {
      if (job) await step(job);
      return true;
    }).catch((err: unknown) => {
      this.logger.error({ err, job: name }, `the fleet-wide job ${name} failed to start or stop`);
      return false;
    });
    this.turns.set(name, next);
    return next;
  }
}
