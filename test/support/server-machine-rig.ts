import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { PortCheckResult } from '../../src/agent/reconciler/port-in-use.js';
import { agentServerMachine, type ProbeResult } from '../../src/agent/reconciler/server-machine.js';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';

/** A desired server for the Agent's server machine: server s1 wanted RUNNING, changed by `over`. */
export const machineTarget = (over: Partial<ServerTarget> = {}): ServerTarget => ({
  serverId: 's1', generation: 1, state: 'RUNNING', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 500, memoryBytes: 256 * 2 ** 20 }, gamePort: 41565, inNetwork: false,
  restartPolicy: { maxRestarts: 0, windowSeconds: 60 }, acknowledgedConditions: [], restartNonce: 0, wakeNonce: 0, ...over,
});

/**
 * The Agent's server machine with its effects stubbed: the server is installed and not running,
 * its port is free, and each install, start, stop and remove only records its name in `calls`.
 */
export function stubbedServerMachine() {
  const calls: string[] = [];
  const effect = (name: string) => fromPromise<void, { desired: ServerTarget }>(async () => void calls.push(name));
  const machine = agentServerMachine.provide({
    actors: {
      probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => ({ installed: true, running: false })),
      install: effect('install'), start: effect('start'), stop: effect('stop'), remove: effect('remove'),
      checkPort: fromPromise<PortCheckResult, { desired: ServerTarget }>(async () => ({ held: false })),
      watchReady: fromCallback<EventObject, { desired: ServerTarget }>(() => () => undefined),
    },
  });
  return { machine, calls };
}
