import type { ArtifactStore } from '../../../adapters/software/artifact-store.js';
import type { ArtifactDownloadSpec } from '../../../schemas/software.js';
import type { ServerSoftware } from '../../../domain/server-spec.js';
import type { TemplateCatalog } from '../../../adapters/software/template-catalog.js';
import { isAgentRequestError, isNodeUnavailable } from '../../../link/errors.js';
import type { NodeCalls } from '../../../link/node-calls.js';
import type { ServiceDeps } from '../../deps.js';

/** The Node's fetch from the Controller: this long at least, plus a second per MiB (a slow link still finishes). */
const nodeFetchBaseMs = 30_000;
const nodeFetchMsPerMiB = 1_000;
/** Sizes the deadline of a download whose upstream lists no size (the largest server jars are ~60 MB). */
const unsizedBytes = 64 * 2 ** 20;

export const prefetchDeadlineMs = (sizeBytes: number | undefined) => nodeFetchBaseMs + Math.ceil((sizeBytes ?? unsizedBytes) / 2 ** 20) * nodeFetchMsPerMiB;

/** Why the new software could not be made ready on the Node, in words for UPDATE_FAILED. */
export class PrefetchFailure extends Error {}

/**
 * An update's first step, before anything of the server is touched: the Controller fetches the new
 * software from its upstream (once, verified, within the artifact store's deadline), then has the
 * server's Node put it in its download cache (PrefetchArtifact) within a deadline sized to it.
 * A slow, failing or mismatching download so fails the update while the server still runs; the
 * install after the stop finds the artifact in the Node's cache. Built-in software has nothing to fetch.
 */
export class SoftwarePrefetch {
  constructor(
    private readonly deps: Pick<ServiceDeps, 'logger'>,
    private readonly templates: TemplateCatalog,
    private readonly store: Pick<ArtifactStore, 'ensureDownload'>,
    private readonly calls: NodeCalls,
  ) {}

  async prefetch(serverId: string, nodeId: string, software: ServerSoftware): Promise<void> {
    const resolved = this.templates.resolve(software);
    if ('problem' in resolved) throw new PrefetchFailure(`the software is not offered (${resolved.problem})`);
    // The artifact and what is installed beside it (Fabric's launcher and Mojang's server jar).
    for (const download of [...(resolved.download ? [resolved.download] : []), ...(resolved.companions ?? [])]) {
      await this.prefetchOne(serverId, nodeId, download);
    }
  }

  private async prefetchOne(serverId: string, nodeId: string, download: ArtifactDownloadSpec): Promise<void> {
    try {
      await this.store.ensureDownload(download);
    } catch (e) {
      const reason = (e as Error).message;
      this.deps.logger.warn({ event: 'update_fetch_failed', serverId, url: download.url, reason }, 'the Controller could not fetch an update\'s software; the server was not stopped');
      throw new PrefetchFailure(`the Controller could not fetch it: ${reason}`);
    }
    const timeoutMs = prefetchDeadlineMs(download.size);
    try {
      await this.calls.askNode(nodeId, {
        body: 'prefetchArtifact', prefetchArtifact: { sha256: download.sha256 ?? '', sha1: download.sha256 ? '' : download.sha1 ?? '', size: download.size ?? 0 },
      }, { timeoutMs });
    } catch (e) {
      // An Agent older than PrefetchArtifact fetches at the install, after the stop, as it always did.
      if (isAgentRequestError(e) && e.code === 'UNSUPPORTED') return;
      const reason = isAgentRequestError(e) ? `${e.message} (${e.code})`
        : isNodeUnavailable(e) ? (e.reason === 'deadline' ? `it did not answer within ${Math.round(timeoutMs / 1000)} s` : 'it is not connected')
          : (e as Error).message;
      this.deps.logger.warn({ event: 'update_fetch_failed', serverId, nodeId, reason }, 'the Node could not fetch an update\'s software; the server was not stopped');
      throw new PrefetchFailure(`the Node could not fetch it: ${reason}`);
    }
  }
}
