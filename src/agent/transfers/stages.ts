import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ChecksumMismatchError } from '../../shared/backup/blob-store.js';
import { rememberHash, scanTree } from '../../shared/backup/scan.js';
import { restoreTree } from '../../shared/backup/tree-restore.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import type { StageCommit } from '../../shared/link/generated/cairn/agent/v1/StageCommit.js';
import type { StageFetch } from '../../shared/link/generated/cairn/agent/v1/StageFetch.js';
import type { StageFromLocal } from '../../shared/link/generated/cairn/agent/v1/StageFromLocal.js';
import type { StagePull } from '../../shared/link/generated/cairn/agent/v1/StagePull.js';
import type { ResponsePayload } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { InvalidTemplateError, parseTemplateJson } from '../../shared/template-check.js';
import { fixedVersions, type Template } from '../../shared/templates.js';
import { AgentError } from '../errors.js';
import type { RequestContext } from '../link/link-client.js';
import type { Installer } from '../reconciler/installer.js';
import { checkServerId, type BackupHost } from './backup-host.js';
import { checkId, leaseMsOf, Leases } from './leases.js';
import type { LocalStores } from './local-stores.js';
import { answerManifest } from './manifest-parts.js';
import { fetchIntoStage } from './stage-fetch.js';
import { StageFiles, stagePath, type StageChunk } from './stage-files.js';
import { pullIntoStage } from './stage-pull.js';
import { finishInterruptedCommits, recordCommitted, wasCommitted } from './stage-commits.js';
import { swapIn, swapPathsOf } from './stage-swap.js';

interface Stage {
  serverId: string;
  dir: string;
  files: StageFiles;
}

export interface StageDeps {
  dataDir: string;
  host: BackupHost;
  installer: Installer;
  stores: LocalStores;
  logger: Logger;
}

/** Where stages live: beside the servers, on their filesystem, so a commit only renames. */
export const stagesDir = (dataDir: string) => join(dataDir, 'stages');

function templateOf(json: string): Template {
  try {
    return parseTemplateJson(json);
  } catch (e) {
    if (e instanceof InvalidTemplateError) throw new AgentError('INVALID_REQUEST', `template_json: ${e.problem}.`);
    throw e;
  }
}

/**
 * Stages: directories filled for a server (by chunks from the Controller, or from a backup kept on
 * this Node) that a commit makes the server's files. A stage not committed before its lease runs
 * out, or aborted, is removed; so are stages an earlier Agent process left (see `open`).
 */
export class Stages {
  private readonly leases: Leases<Stage>;
  /** The chunks of one file of one stage, one at a time. */
  private readonly writeLocks = new KeyedMutex();
  /** Commits under way, so a question about one is answered when it has ended. */
  private readonly committing = new Map<string, Promise<void>>();

  private constructor(private readonly deps: StageDeps) {
    this.leases = new Leases('stage', (stage) => this.removeStage(stage), (err, id) => deps.logger.error({ err, stageId: id }, 'removing an expired stage failed'));
  }

  /**
   * Stages of an earlier Agent process belong to requests nobody waits for any more: they go,
   * once any commit among them a crash cut off is finished.
   */
  static async open(deps: StageDeps): Promise<Stages> {
    await finishInterruptedCommits(deps.dataDir, stagesDir(deps.dataDir), deps.logger);
    await rm(stagesDir(deps.dataDir), { recursive: true, force: true });
    return new Stages(deps);
  }

  async begin(input: { stageId: string; serverId: string; leaseMs: number }): Promise<void> {
    const stageId = checkId('stage_id', input.stageId);
    const serverId = checkServerId(input.serverId);
    if (this.leases.has(stageId)) throw new AgentError('ALREADY_EXISTS', `A stage ${stageId} is open already.`);
    const dir = join(stagesDir(this.deps.dataDir), stageId);
    await mkdir(join(dir, 'files'), { recursive: true, mode: 0o700 });
    await mkdir(join(dir, 'incoming'), { recursive: true, mode: 0o700 });
    this.leases.add(stageId, { serverId, dir, files: new StageFiles(join(dir, 'files'), join(dir, 'incoming')) }, leaseMsOf(input.leaseMs));
  }

  /** One chunk of a file, or (`directory`) a directory to make. */
  async write(input: { stageId: string; directory: boolean } & StageChunk): Promise<void> {
    const path = stagePath(input.path);
    return this.leases.use(input.stageId, (stage) => this.writeLocks.run(`${input.stageId}/${path}`, () => (input.directory
      ? stage.files.makeDirectory(path, input.mode)
      : stage.files.write({ ...input, path }))));
  }

  /** One file from an object store with a presigned GET (StageFetch). */
  async fetch(input: StageFetch, signal: AbortSignal): Promise<void> {
    const path = stagePath(input.path);
    return this.leases.use(input.stageId, (stage) => this.writeLocks.run(`${input.stageId}/${path}`, () => fetchIntoStage(stage.files, { ...input, path }, signal)));
  }

  /** Files straight from another Agent's snapshot (StagePull); answers the bytes written. */
  async pull(input: StagePull, signal: AbortSignal): Promise<number> {
    const files = input.files.map((f) => ({ ...f, path: stagePath(f.path) }));
    const peer = { host: input.host, port: input.port, grantId: input.grantId, key: input.key, connectTimeoutMs: input.connectTimeoutMs || 3000 };
    return this.leases.use(input.stageId, (stage) => pullIntoStage(stage.files, { peer, files, expectManifest: input.expectManifest }, (path, work) => this.writeLocks.run(`${input.stageId}/${path}`, work), signal));
  }

  async remove(input: { stageId: string; path: string }): Promise<void> {
    const path = stagePath(input.path);
    return this.leases.use(input.stageId, (stage) => stage.files.remove(path));
  }

  /** A new stage holding a backup from a store on this Node, every file's sha256 checked as it is written. */
  async fromLocal(input: StageFromLocal): Promise<void> {
    const backupId = checkId('backup_id', input.backupId);
    await this.begin(input);
    try {
      await this.leases.use(input.stageId, (stage) => this.deps.stores.use(input.destinationPath, async (store) => {
        const manifest = await store.readManifest(backupId);
        if (!manifest) throw new AgentError('NOT_FOUND', `No backup ${backupId} in that store.`);
        await restoreTree(store, manifest, stage.files.dir);
        for (const e of manifest.entries) if (e.type === 'FILE') await rememberHash(stage.files.cache, stage.files.pathOf(e.path), e.sha256);
      }));
    } catch (e) {
      await this.leases.release(input.stageId);
      if (e instanceof ChecksumMismatchError) throw new AgentError('CHECKSUM_MISMATCH', 'A file of the backup is damaged in the store (its sha256 does not match).');
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new AgentError('NOT_FOUND', 'A file of the backup is missing from the store.');
      throw e;
    }
  }

  /** The stage's manifest, in parts. */
  scan(stageId: string, ctx: Pick<RequestContext, 'sendPart'>): Promise<ResponsePayload> {
    return this.leases.use(stageId, async (stage) => answerManifest(await scanTree(stage.files.dir, stage.files.cache), ctx));
  }

  /**
   * Makes the stage the server's files and installs its software again; the stage is gone after.
   * Refused (SERVER_RUNNING) while the server's process runs here; the stage is kept then.
   */
  async commit(input: StageCommit): Promise<void> {
    const done = this.commitStage(input);
    this.committing.set(input.stageId, done.catch(() => undefined));
    try {
      await done;
    } finally {
      this.committing.delete(input.stageId);
    }
  }

  private async commitStage(input: StageCommit): Promise<void> {
    await this.leases.use(input.stageId, async (stage) => {
      if (checkServerId(input.serverId) !== stage.serverId) throw new AgentError('INVALID_REQUEST', 'server_id: the stage was begun for another server.');
      if (stage.files.writing > 0) throw new AgentError('INVALID_REQUEST', 'Files are still being written into the stage.');
      const template = templateOf(input.templateJson);
      const software = input.software;
      if (software?.template !== template.id) throw new AgentError('INVALID_REQUEST', 'software.template: not the template given.');
      if (!fixedVersions(template)?.includes(software.version)) throw new AgentError('INVALID_REQUEST', `software.version: ${template.id} has no version ${software.version}.`);
      await this.deps.host.replaceFiles(stage.serverId, async (root) => {
        await stage.files.settleModes();
        await swapIn({ serverId: stage.serverId, paths: swapPathsOf(stage.dir, root), committed: () => recordCommitted(this.deps.dataDir, input.stageId, stage.serverId) });
        await this.deps.installer.install(root, template, software.version);
      });
    });
    await this.leases.release(input.stageId);
  }

  /** Whether the stage's commit completed here (in this process or finished at a start); one under way is waited for. */
  async committed(stageId: string): Promise<boolean> {
    const id = checkId('stage_id', stageId);
    await this.committing.get(id);
    return wasCommitted(this.deps.dataDir, id);
  }

  /** A commit under way ends first: removing its stage midway would remove what it moved aside. */
  async abort(stageId: string): Promise<void> {
    await this.committing.get(stageId);
    await this.leases.release(stageId);
  }

  /** Removes every stage (the Agent stops), once the commits under way have ended. */
  async abortAll(): Promise<void> {
    await Promise.all(this.committing.values());
    await this.leases.releaseAll();
  }

  private async removeStage(stage: Stage): Promise<void> {
    await stage.files.discardAll();
    await rm(stage.dir, { recursive: true, force: true });
  }
}
