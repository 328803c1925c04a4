import { access } from 'node:fs/promises';
import type { DesiredServer as LinkDesiredServer, DesiredState, ServerStatus } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import type { AgentLinkClient } from '../link-client.js';
import type { ProcessRuntime } from '../runtime/process-runtime.js';
import type { DesiredServer } from './desired-server.js';
import type { Installer } from './installer.js';
import type { HostSettings } from './launch.js';
import { serverHome } from './server-paths.js';
import { ServerRunner } from './server-runner.js';

export interface ReconcilerDeps {
  dataDir: string;
  runtime: ProcessRuntime;
  installer: Installer;
  host: HostSettings;
  logger: Logger;
  /** First automatic-restart delay after a crash. */
  restartBackoffMs: number;
  /** How often running servers' CPU and memory are sampled and reported. */
  usageEveryMs: number;
  beforeStart?: (desired: DesiredServer, serverDir: string) => Promise<void>;
}

type WithTemplate = DesiredServer & { templateJson: string };

export function fromLink(d: LinkDesiredServer): WithTemplate {
  return {
    serverId: d.serverId,
    generation: d.generation,
    state: d.desiredState.replace('DESIRED_RUNTIME_STATE_', '') as DesiredServer['state'],
    software: { template: d.software?.template ?? '', version: d.software?.version ?? '', ...(d.software?.build ? { build: d.software.build } : {}) },
    resources: { cpuMillis: d.resources?.cpuMillis ?? 0, memoryBytes: d.resources?.memoryBytes ?? 0 },
    gamePort: d.gamePort,
    inNetwork: d.inNetwork,
    restartPolicy: { maxRestarts: d.restartPolicy?.maxRestarts ?? 0, windowSeconds: d.restartPolicy?.windowSeconds ?? 60 },
    acknowledgedConditions: d.acknowledgedConditionIds,
    restartNonce: d.restartNonce,
    templateJson: d.templateJson,
    plugins: d.plugins ?? [],
  };
}

const exists = (path: string) => access(path).then(() => true, () => false);

/**
 * The Agent's reconciler: takes the Node's full desired state each time it arrives and keeps one
 * runner per server. Game processes belong to their supervisors, so an Agent restart finds them
 * running and each runner adopts its own.
 */
export class Reconciler {
  private readonly runners = new Map<string, ServerRunner>();
  private link?: AgentLinkClient;
  private usageTimer?: NodeJS.Timeout;

  constructor(private readonly deps: ReconcilerDeps) {
    deps.runtime.onExit((serverId, exit) => this.runners.get(serverId)?.exited(exit));
  }

  attach(link: AgentLinkClient): void {
    this.link = link;
    link.onDesiredState((state) => {
      this.apply(state).catch((err: unknown) => this.deps.logger.error({ err }, 'applying the desired state failed'));
    });
    link.onConnected(() => this.runners.forEach((r) => r.sendStatus()));
    this.usageTimer = setInterval(() => this.runners.forEach((r) => void r.sampleUsage()), this.deps.usageEveryMs);
    this.usageTimer.unref();
  }

  serverIds(): string[] {
    return [...this.runners.keys()];
  }

  runner(serverId: string): ServerRunner | undefined {
    return this.runners.get(serverId);
  }

  private report = (status: ServerStatus) => {
    this.link?.sendServerStatus(status);
  };

  async apply(state: DesiredState): Promise<void> {
    const listed = new Set<string>();
    for (const entry of state.servers) {
      const desired = fromLink(entry);
      listed.add(desired.serverId);
      const runner = this.runners.get(desired.serverId);
      if (runner) {
        if (runner.finished) runner.sendStatus();
        else runner.desired(desired);
        continue;
      }
      // A server deleted here already (the Controller has not heard yet) must not be installed again.
      if (desired.state === 'DELETED' && !(await exists(serverHome(this.deps.dataDir, desired.serverId)))) {
        this.report(removedStatus(desired));
        continue;
      }
      this.runners.set(desired.serverId, new ServerRunner({ ...this.deps, backoffBaseMs: this.deps.restartBackoffMs, report: this.report }, desired));
    }
    for (const [id, runner] of this.runners) {
      if (!listed.has(id) && runner.finished) this.runners.delete(id);
    }
  }

  stop(): void {
    clearInterval(this.usageTimer);
    for (const runner of this.runners.values()) runner.actor.stop();
    this.deps.runtime.close();
  }
}

function removedStatus(desired: DesiredServer): ServerStatus {
  return {
    serverId: desired.serverId, observedGeneration: desired.generation, runtimeState: 'RUNTIME_STATE_UNSPECIFIED', installed: false,
    usage: null, conditions: [], ports: [], startedAt: '', removed: true, restarting: false, restartPending: false, installError: '',
  };
}
