import type { AuditScope } from '../../../core/audit-scope.js';
import type { Caller } from '../../../core/caller.js';
import { DomainError, invalidRequest } from '../../../core/errors.js';
import { incompatiblePlugins, updateRefusal } from '../../../domain/software-update.js';
import type { ServerSoftware } from '../../../domain/server-spec.js';
import type { ServerDoc } from '../../../store/records.js';
import type { CatalogService } from '../../plugins/catalog.js';
import { nodeUnavailable } from '../../../link/node-calls.js';
import type { NodeDirectory } from '../../../core/node-directory.js';
import { nowIso } from '../../deps.js';
import type { WorkflowDefinition, WorkflowRunner } from '../workflow-runner.js';
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
 * the UPDATE workflow persisted; the runner goes on with it.
 */
export class UpdateService implements WorkflowDefinition {
  readonly kind = 'UPDATE';

  constructor(
    private readonly ctx: UpdateContext,
    private readonly nodes: NodeDirectory,
    private readonly catalog: Pick<CatalogService, 'current'>,
    private readonly runner: WorkflowRunner,
  ) {}

  async update(caller: Caller, serverId: string, input: UpdateSoftwareInput, audit: AuditScope) {
    audit.target(serverId).detail({ ...input });
    const doc = await this.ctx.servers.load(caller, serverId, 'servers.update');
    const from = doc.desired.software;
    const to = await this.target(from, input);
    audit.detail({ from, to });
    const refusal = updateRefusal(from, to, input.allowDowngrade ?? false, (s) => this.ctx.templates.gameVersionOf(s));
    if (refusal) throw new DomainError(refusal.code, refusal.detail);
    const event = { type: 'WORKFLOW_BEGIN', at: nowIso(this.ctx.deps), kind: 'UPDATE', step: updateSteps.fetching } as const;
    this.ctx.servers.requireAccepts(doc, event);
    if (!input.force) await this.requireSuitedPlugins(doc, to);
    const destination = input.backupDestinationId === undefined ? undefined : await this.ctx.destinations.resolve(input.backupDestinationId, 'body.backupDestinationId');
    if (destination?.kind === 'NODE_DIRECTORY' && !doc.nodeId) throw invalidRequest('body.backupDestinationId: the server is on no Node.');
    if (!doc.nodeId || !this.nodes.isConnected(doc.nodeId)) throw nodeUnavailable();
    this.runner.refuseWhileStopping();
    const begun = await this.ctx.servers.apply(doc, {
      ...event,
      // Not held yet: the server runs on while the new software is fetched.
      facts: { fromSoftware: from, toSoftware: to, ...(destination ? { backupDestinationId: destination._id } : { rollbackCopy: true }) },
    });
    void this.runner.launch(begun, 'forward');
    return this.ctx.servers.detail(begun);
  }

  /** The software asked for, as the catalog offers it, its build pinned; `body.version` or `body.build` named when it is not offered. */
  private async target(from: ServerSoftware, input: UpdateSoftwareInput): Promise<ServerSoftware> {
    const to: ServerSoftware = { template: from.template, version: input.version, ...(input.build !== undefined ? { build: input.build } : {}) };
    const unprepared = await this.ctx.templates.prepare(to);
    if (unprepared) throw invalidRequest(`body.${unprepared.field}: ${unprepared.problem}.`);
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

  open(doc: ServerDoc, stopping: AbortSignal): UpdateRun {
    return new UpdateRun(this.ctx, doc, stopping);
  }
}
