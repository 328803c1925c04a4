import { accepts } from '../../actors/server-fleet.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { DomainError, invalidRequest } from '../../core/errors.js';
import { incompatiblePlugins, updateRefusal } from '../../domain/software-update.js';
import type { ServerSoftware } from '../../domain/server-spec.js';
import type { ServerDoc } from '../../store/records.js';
import type { CatalogService } from '../plugins/catalog.js';
import { nodeUnavailable } from '../agent-link/node-calls.js';
import type { NodeGateway } from '../nodes/node-gateway.js';
import { nowIso } from '../deps.js';
import { Stopped } from '../migration/migration-steps.js';
import type { WorkflowOutcomes, WorkflowResult } from '../migration/workflow-outcomes.js';
import { UpdateRun, updateSteps, type UpdateContext } from './update-run.js';

export interface UpdateSoftwareInput {
  version: string;
  build?: string;
  backupDestinationId?: string;
  allowDowngrade?: boolean;
  force?: boolean;
}

/**
 * POST /servers/{id}/software: the request is checked (the version and build offered, no
 * downgrade unless allowed, the installed catalog plugins suited to the target unless forced) and
 * the UPDATE workflow persisted; the run goes on in the background, one per server. At start,
 * every update the store holds is finished or rolled back; at shutdown, runs stop where they are.
 */
export class UpdateService {
  private readonly runs = new Map<string, Promise<WorkflowResult | 'stopped'>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly ctx: UpdateContext,
    private readonly gateway: NodeGateway,
    private readonly catalog: Pick<CatalogService, 'current'>,
    private readonly outcomes: WorkflowOutcomes,
  ) {}

  async update(caller: Caller, serverId: string, input: UpdateSoftwareInput, audit: AuditScope) {
    audit.target(serverId).detail({ ...input });
    const doc = await this.ctx.servers.load(caller, serverId, 'servers.update');
    const from = doc.desired.software;
    const to = this.target(from, input);
    audit.detail({ from, to });
    const refusal = updateRefusal(from, to, input.allowDowngrade ?? false);
    if (refusal) throw new DomainError(refusal.code, refusal.detail);
    const event = { type: 'WORKFLOW_BEGIN', at: nowIso(this.ctx.deps), kind: 'UPDATE', step: updateSteps.fetching } as const;
    const actor = this.ctx.servers.actorOf(doc);
    if (!accepts(actor, event)) throw this.ctx.servers.busy(actor);
    if (!input.force) await this.requireSuitedPlugins(doc, to);
    const destination = input.backupDestinationId === undefined ? undefined : await this.ctx.destinations.resolve(input.backupDestinationId, 'body.backupDestinationId');
    if (destination?.kind === 'NODE_DIRECTORY' && !doc.nodeId) throw invalidRequest('body.backupDestinationId: the server is on no Node.');
    if (!doc.nodeId || !this.gateway.isConnected(doc.nodeId)) throw nodeUnavailable();
    if (this.stopping.signal.aborted) throw new DomainError('not_ready', 'The Controller is stopping.');
    const begun = await this.ctx.servers.apply(doc, {
      ...event,
      // Not held yet: the server runs on while the new software is fetched.
      facts: { fromSoftware: from, toSoftware: to, ...(destination ? { backupDestinationId: destination._id } : { rollbackCopy: true }) },
    });
    this.launch(begun, 'forward');
    return this.ctx.servers.detail(begun);
  }

  /** The software asked for, as the catalog offers it, its build pinned; `body.version` or `body.build` named when it is not offered. */
  private target(from: ServerSoftware, input: UpdateSoftwareInput): ServerSoftware {
    const to: ServerSoftware = { template: from.template, version: input.version, ...(input.build !== undefined ? { build: input.build } : {}) };
    const resolved = this.ctx.templates.resolve(to);
    if ('problem' in resolved) {
      const field = input.build !== undefined && this.ctx.templates.supports(from.template, input.version) ? 'build' : 'version';
      throw invalidRequest(`body.${field}: ${resolved.problem} (all in GET /templates/${from.template}/versions).`);
    }
    // Without a build named, the newest listed one, written down as at creation.
    return resolved.build ? { ...to, build: resolved.build } : to;
  }

  private async requireSuitedPlugins(doc: ServerDoc, to: ServerSoftware): Promise<void> {
    const template = this.ctx.templates.get(to.template);
    if (!template) return;
    const installed = await this.ctx.deps.repos.pluginInstallations.find({ serverId: doc._id });
    const names = incompatiblePlugins(installed, (id) => this.catalog.current.plugin(id), { platform: template.platform, gameVersion: to.version });
    if (names.length) {
      throw new DomainError('incompatible_plugin', `No version of ${names.join(', ')} in the catalog runs on ${to.template} ${to.version}: remove ${names.length === 1 ? 'it' : 'them'} first, or send force: true to update anyway.`);
    }
  }

  /** Every update the store holds (a Controller stopped or killed mid-way): finished or rolled back, in the background. */
  async recover(): Promise<void> {
    for (const doc of await this.ctx.deps.repos.servers.find({ phase: 'UPDATING' })) this.launch(doc, 'resume');
  }

  /** Stops every run where it is, leaving its workflow in the store for the next start. */
  async stop(): Promise<void> {
    this.stopping.abort(new Stopped());
    await Promise.all(this.runs.values());
  }

  private launch(doc: ServerDoc, how: 'forward' | 'resume'): void {
    const run = new UpdateRun(this.ctx, doc, this.stopping.signal);
    // The server's backups wait meanwhile: the PRE_UPDATE backup is taken inside this turn.
    const done = this.ctx.runner.exclusive(doc._id, () => (how === 'forward' ? run.forward() : run.resume()))
      .then((result) => {
        this.outcomes.record('UPDATE', result);
        return result;
      })
      .catch((err: unknown): 'stopped' => {
        // Whatever the run could not write stays in the store; the next start settles it.
        if (!(err instanceof Stopped)) this.ctx.deps.logger.error({ err, serverId: doc._id }, 'an update run failed');
        return 'stopped';
      })
      .finally(() => this.runs.delete(doc._id));
    this.runs.set(doc._id, done);
  }
}
