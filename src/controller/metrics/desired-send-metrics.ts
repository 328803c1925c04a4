import { Counter, type Registry } from 'prom-client';
import type { DesiredSender } from '../services/agent-link/desired-sender.js';

/** `cairn_desired_state_send_failures_total`: desired-state sends to Agents that failed before going out (a store read); any rise is worth a look. */
export function registerDesiredSendMetrics(registry: Registry, sender: DesiredSender): void {
  const failures = new Counter({
    name: 'cairn_desired_state_send_failures_total',
    help: 'Desired-state sends to Agents that failed before going out (the store could not be read).',
    registers: [registry],
  });
  sender.onSendFailed(() => failures.inc());
}
