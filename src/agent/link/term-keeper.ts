import type { Logger } from '../../shared/logger.js';

/**
 * The highest lease term this Agent has seen for its Node. Desired states and operations of an
 * older term come from a Controller that lost the Node (paused, or its message delayed in flight)
 * and are refused, with a log line. Term 0 is a Controller without leases (the embedded store's,
 * the only one on its store): always accepted.
 */
export class TermKeeper {
  private highest = 0;

  constructor(private readonly logger: Logger) {}

  get term(): number {
    return this.highest;
  }

  /** Whether a message of `term` may be obeyed; raises the highest term seen. `what` names it in the log. */
  accept(term: number, what: string): boolean {
    if (term === 0 || term >= this.highest) {
      // Said once per term: the log then shows every term obeyed, in order (the fault tests read it).
      if (term > this.highest) this.logger.info({ event: 'lease_term_raised', term, previousTerm: this.highest, what }, `obeying lease term ${term} from now on`);
      this.highest = Math.max(this.highest, term);
      return true;
    }
    this.logger.warn({ event: 'stale_term_refused', term, highestTerm: this.highest, what }, `refused ${what} of lease term ${term}: a Controller with term ${this.highest} drives this Node`);
    return false;
  }
}
