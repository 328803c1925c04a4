import type { Readable } from 'node:stream';
import { rm } from 'node:fs/promises';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { maxJarBytes } from '../../schemas/catalog-feed.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, invalidRequest, notFound, DomainError } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import type { PluginTarget } from '../../domain/plugin-compat.js';
import {
  chooseVersion, orphanedDependencies, planInstall, planRemoval, PluginResolutionError, resolveDependencies, type PlannedPlugin,
} from '../../domain/plugin-deps.js';
import { ArtifactUnavailableError, type ArtifactStore } from '../../adapters/software/artifact-store.js';
import type { ArtifactKey } from '../../link/artifact-rpc.js';
import { receiveBody } from '../../adapters/plugins/upload-receiver.js';
import type { PluginInstallationDoc, ServerDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import type { CatalogService } from './catalog.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { DesiredChanges } from '../../core/desired-changes.js';
import { installationView } from './plugin-views.js';
import { CatalogJars, type Sha256Planned } from './catalog-jars.js';
import { requireDiskRoom } from '../../domain/disk-room.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { ServerAggregate } from '../servers/aggregate.js';

export interface InstallInput {
  pluginId: string;
  versionId?: string;
  force?: boolean;
}

const installationKey = (serverId: string, pluginId: string) => `${serverId} ${pluginId}`;

/** The resolver's typed failures as the API's error codes. */
function asDomainError(error: unknown): unknown {
  if (!(error instanceof PluginResolutionError)) return error;
  switch (error.failure) {
    case 'unknown_plugin': return notFound('catalog plugin');
    case 'unknown_version': return invalidRequest(`body.versionId: ${error.message}`);
    case 'incompatible': return new DomainError('incompatible_plugin', error.message);
    case 'denied': return new DomainError('plugin_denied', error.message);
    case 'missing_dependency': return new DomainError('conflict', `A required plugin is missing: ${error.message}`);
  }
}

/**
 * Plugin installations of servers: from the catalog (with their required dependencies) or
 * uploaded jars. Changes to one server's plugins run one at a time. A change reaches the Node as
 * new desired state at once but takes effect at the server's next start, so it never changes
 * the server's generation.
 */
export class PluginService {
  private readonly locks = new KeyedMutex();
  private readonly jars: CatalogJars;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly servers: ServerAggregate,
    private readonly catalog: CatalogService,
    private readonly templates: TemplateCatalog,
    private readonly desired: DesiredChanges,
    readonly artifacts: ArtifactStore,
    serverChanges: ServerChangeHub,
  ) {
    this.jars = new CatalogJars(artifacts);
    serverChanges.subscribe(({ doc, deleted }) => {
      if (deleted) this.forgetServer(doc._id).catch((err: unknown) => deps.logger.error({ err, serverId: doc._id }, 'removing a deleted server\'s plugins failed'));
    });
  }

  /** What a plugin must suit on this server; undefined when its template is gone. */
  targetOf(server: ServerDoc): PluginTarget | undefined {
    const template = this.templates.get(server.desired.software.template);
    return template ? { platform: template.platform, gameVersion: server.desired.software.version } : undefined;
  }

  private installed = (serverId: string) => this.deps.repos.pluginInstallations.find({ serverId }, { sort: { _id: 1 } });

  private view(server: ServerDoc, doc: PluginInstallationDoc, all: PluginInstallationDoc[]) {
    return installationView(doc, all, this.catalog.current, this.targetOf(server));
  }

  private changed(server: ServerDoc): void {
    if (server.nodeId) this.desired.desiredStateChanged(server.nodeId, [server]);
  }

  async list(caller: Caller, serverId: string, page: { limit: number; cursor?: string }) {
    const server = await this.servers.load(caller, serverId, 'plugins.read');
    const all = await this.installed(serverId);
    const result = await paginate<PluginInstallationDoc, string>(
      page,
      async (after, limit) => all.filter((d) => after === undefined || d._id > after).slice(0, limit),
      (d) => d._id,
    );
    return { ...result, items: result.items.map((d) => this.view(server, d, all)) };
  }

  async install(caller: Caller, serverId: string, input: InstallInput, audit: AuditScope) {
    audit.target(serverId).detail({ pluginId: input.pluginId, ...(input.versionId ? { versionId: input.versionId } : {}), force: input.force ?? false });
    const server = await this.servers.load(caller, serverId, 'plugins.install');
    const target = this.requireTarget(server);
    return this.locks.run(serverId, async () => {
      const all = await this.installed(serverId);
      const existing = all.find((d) => d.pluginId === input.pluginId);
      if (existing) return this.promote(server, existing, all, input, audit);
      let plan: PlannedPlugin[];
      try {
        plan = planInstall(this.catalog.current, all, { pluginId: input.pluginId, versionId: input.versionId, force: input.force ?? false, target });
      } catch (error) {
        throw asDomainError(error);
      }
      const at = nowIso(this.deps);
      const docs = (await this.jars.withSha256(plan)).map((p) => this.fromPlan(serverId, p, at));
      requireDiskRoom(server, docs.reduce((sum, d) => sum + d.sizeBytes, 0));
      for (const doc of docs) await this.deps.repos.pluginInstallations.insert(doc);
      audit.detail({
        installationId: docs[0]._id, version: docs[0].version, catalogVersionId: docs[0].catalogVersionId,
        compatibilityConfirmed: docs[0].compatibilityConfirmed, dependencies: docs.slice(1).map((d) => ({ pluginId: d.pluginId, version: d.version })),
      });
      this.prefetch(docs);
      this.changed(server);
      const now = [...all, ...docs];
      return this.view(server, docs[0], now);
    });
  }

  /**
   * Installing a plugin the server already has: one that came only as a dependency becomes an
   * installation of its own (kept when its dependants go); anything else is a clash, as updates
   * go through the update endpoint.
   */
  private async promote(server: ServerDoc, existing: PluginInstallationDoc, all: PluginInstallationDoc[], input: InstallInput, audit: AuditScope) {
    const sameVersion = input.versionId === undefined || input.versionId === existing.catalogVersionId;
    if (!existing.dependency || !sameVersion) {
      throw conflict(`${existing.pluginId} ${existing.version} is already installed (installation ${existing._id}); use its update endpoint to change the version.`);
    }
    const at = nowIso(this.deps);
    await this.deps.repos.pluginInstallations.update({ _id: existing._id }, { dependency: false, updatedAt: at });
    audit.detail({ installationId: existing._id, version: existing.version, promotedFromDependency: true });
    const doc = { ...existing, dependency: false, updatedAt: at };
    return this.view(server, doc, all.map((d) => (d._id === doc._id ? doc : d)));
  }

  async update(caller: Caller, serverId: string, installationId: string, input: { versionId?: string; force?: boolean }, audit: AuditScope) {
    audit.target(serverId).detail({ installationId, ...(input.versionId ? { versionId: input.versionId } : {}) });
    const server = await this.servers.load(caller, serverId, 'plugins.update');
    const target = this.requireTarget(server);
    return this.locks.run(serverId, async () => {
      const all = await this.installed(serverId);
      const doc = all.find((d) => d._id === installationId);
      if (!doc) throw notFound('plugin installation');
      audit.detail({ pluginId: doc.pluginId, fromVersion: doc.version });
      if (doc.source === 'UPLOAD') throw invalidRequest('An uploaded plugin is replaced by uploading a jar with the same declared name.');
      const catalog = this.catalog.current;
      const plugin = catalog.plugin(doc.pluginId);
      if (!plugin) throw conflict(`${doc.pluginId} is no longer in the catalog; it cannot be updated.`);
      let root: PlannedPlugin;
      let added: PlannedPlugin[];
      try {
        const { version, compatible } = chooseVersion(catalog, plugin, { versionId: input.versionId, force: input.force ?? false, target });
        root = { pluginId: plugin.id, plugin, version, compatibilityConfirmed: compatible, dependency: doc.dependency, requires: [...version.dependencies] };
        added = resolveDependencies(catalog, [root], new Set(all.map((d) => d.pluginId)), { force: input.force ?? false, target });
      } catch (error) {
        throw asDomainError(error);
      }
      if (root.version.versionId === doc.catalogVersionId && added.length === 0) {
        audit.detail({ version: doc.version, changed: false });
        return this.view(server, doc, all);
      }
      const at = nowIso(this.deps);
      const [rootJar, ...addedJars] = await this.jars.withSha256([root, ...added]);
      const next: PluginInstallationDoc = { ...this.fromPlan(serverId, rootJar, at), _id: doc._id, installedAt: doc.installedAt };
      await this.deps.repos.pluginInstallations.replace({ _id: doc._id }, next);
      const addedDocs = addedJars.map((p) => this.fromPlan(serverId, p, at));
      for (const d of addedDocs) await this.deps.repos.pluginInstallations.insert(d);
      const after = [...all.map((d) => (d._id === doc._id ? next : d)), ...addedDocs];
      // A dependency the old version needed and nothing needs now goes with the update.
      const orphans = orphanedDependencies(after);
      if (orphans.length > 0) await this.deps.repos.pluginInstallations.delete({ serverId, pluginId: { $in: orphans } });
      audit.detail({
        version: next.version, catalogVersionId: next.catalogVersionId, changed: true,
        dependencies: addedDocs.map((d) => ({ pluginId: d.pluginId, version: d.version })), removedDependencies: orphans,
      });
      this.prefetch([next, ...addedDocs]);
      this.changed(server);
      return this.view(server, next, after.filter((d) => !orphans.includes(d.pluginId)));
    });
  }

  async remove(caller: Caller, serverId: string, installationId: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ installationId });
    const server = await this.servers.load(caller, serverId, 'plugins.delete');
    await this.locks.run(serverId, async () => {
      const all = await this.installed(serverId);
      const doc = all.find((d) => d._id === installationId);
      if (!doc) throw notFound('plugin installation');
      audit.detail({ pluginId: doc.pluginId, version: doc.version });
      const plan = planRemoval(all, doc.pluginId);
      if ('blockedBy' in plan) throw new DomainError('plugin_required', `${doc.pluginId} is required by ${plan.blockedBy.join(', ')}; remove those first.`);
      await this.deps.repos.pluginInstallations.delete({ serverId, pluginId: { $in: plan.remove } });
      audit.detail({ removedDependencies: plan.remove.slice(1) });
      this.changed(server);
    });
  }

  /**
   * An uploaded jar: streamed to disk within the size limit, read within the jar limits, and
   * installed as `upload:<declared name>`, replacing an earlier upload of the same name.
   */
  async upload(caller: Caller, serverId: string, fileName: string | undefined, body: Readable, declaredBytes: number | undefined, audit: AuditScope) {
    audit.target(serverId);
    // The permission is checked before a byte of the body is read.
    const server = await this.servers.load(caller, serverId, 'plugins.install');
    const temp = await this.artifacts.tempPath();
    try {
      const received = await receiveBody(body, temp, maxJarBytes, declaredBytes);
      audit.detail({ sizeBytes: received.size, sha256: received.sha256 });
      if (received.size === 0) throw invalidRequest('body: the jar is empty.');
      const platform = this.templates.get(server.desired.software.template)?.platform ?? 'paper';
      // The jar reader and the YAML parser are loaded by the first upload, not at start.
      const { inspectJar, JarRejectedError } = await import('../../adapters/plugins/jar-inspector.js');
      let declared;
      try {
        declared = await inspectJar(temp, platform);
      } catch (error) {
        if (error instanceof JarRejectedError) throw invalidRequest(`body: ${error.message}.`);
        throw error;
      }
      const pluginId = `upload:${declared.name}`;
      const shownName = displayFileName(fileName) ?? `${declared.name}-${declared.version}.jar`;
      audit.detail({ pluginId, version: declared.version, fileName: shownName });
      await this.artifacts.adopt(temp, received.sha256);
      return await this.locks.run(serverId, async () => {
        const all = await this.installed(serverId);
        const existing = all.find((d) => d.pluginId === pluginId);
        requireDiskRoom(server, received.size - (existing?.sizeBytes ?? 0));
        const at = nowIso(this.deps);
        const doc: PluginInstallationDoc = {
          _id: existing?._id ?? this.deps.ids.next(), serverId, key: installationKey(serverId, pluginId), pluginId, name: declared.name, source: 'UPLOAD',
          version: declared.version, verified: false, compatibilityConfirmed: false, dependency: false, requires: [],
          fileName: shownName, sha256: received.sha256, sizeBytes: received.size, installedAt: existing?.installedAt ?? at, updatedAt: at,
        };
        if (existing) await this.deps.repos.pluginInstallations.replace({ _id: existing._id }, doc);
        else await this.deps.repos.pluginInstallations.insert(doc);
        audit.detail({ installationId: doc._id, replaced: existing !== undefined, ...(existing ? { replacedVersion: existing.version } : {}) });
        this.changed(server);
        return this.view(server, doc, existing ? all.map((d) => (d._id === doc._id ? doc : d)) : [...all, doc]);
      });
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** The server was deleted: its installations go too (the jars stay, other servers may share them). */
  private async forgetServer(serverId: string): Promise<void> {
    await this.deps.repos.pluginInstallations.delete({ serverId });
  }

  /**
   * The jar of `sha256` for a Node, if one of its servers has it installed: the Agent may fetch
   * only what it runs. Catalog jars are fetched and checked on first use.
   */
  async artifactFor(nodeId: string, { sha256 }: ArtifactKey): Promise<string | undefined> {
    if (!sha256) return undefined;
    const holders = await this.deps.repos.pluginInstallations.find({ sha256 });
    for (const doc of holders) {
      const server = await this.deps.repos.servers.findById(doc.serverId);
      if (server?.nodeId !== nodeId) continue;
      return this.artifacts.ensure({ sha256, sizeBytes: doc.sizeBytes, url: doc.downloadUrl });
    }
    return undefined;
  }

  private requireTarget(server: ServerDoc): PluginTarget {
    const target = this.targetOf(server);
    if (!target) throw conflict(`The server's template ${server.desired.software.template} is no longer offered.`);
    return target;
  }

  private fromPlan(serverId: string, p: Sha256Planned, at: string): PluginInstallationDoc {
    return {
      _id: this.deps.ids.next(), serverId, key: installationKey(serverId, p.pluginId), pluginId: p.pluginId, name: p.plugin.name, source: 'CATALOG',
      version: p.version.version, catalogVersionId: p.version.versionId, verified: true, compatibilityConfirmed: p.compatibilityConfirmed,
      dependency: p.dependency, requires: p.requires, fileName: `${p.plugin.slug}-${p.version.version}.jar`,
      sha256: p.sha256, sizeBytes: p.version.download.size, downloadUrl: p.version.download.url, installedAt: at, updatedAt: at,
    };
  }

  /** Fetches catalog jars in the background, so the Node's fetch at the next start finds them ready. */
  private prefetch(docs: PluginInstallationDoc[]): void {
    for (const doc of docs) {
      void this.artifacts.ensure({ sha256: doc.sha256, sizeBytes: doc.sizeBytes, url: doc.downloadUrl }).catch((err: unknown) => {
        if (err instanceof ArtifactUnavailableError) this.deps.logger.warn({ event: 'artifact_unavailable', pluginId: doc.pluginId, reason: err.message }, 'a plugin jar could not be fetched yet');
        else this.deps.logger.error({ err, pluginId: doc.pluginId }, 'prefetching a plugin jar failed');
      });
    }
  }
}

/** The uploaded file's display name: its last path element only, or undefined when none is left. */
export function displayFileName(fileName: string | undefined): string | undefined {
  if (fileName === undefined) return undefined;
  const last = fileName.split(/[/\\]/).pop()!.trim();
  return last === '' || last === '.' || last === '..' ? undefined : last;
}
