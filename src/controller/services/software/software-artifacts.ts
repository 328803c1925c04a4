import type { ArtifactKey, ArtifactProvider } from '../../link/artifact-rpc.js';
import type { ArtifactStore } from '../../adapters/software/artifact-store.js';
import type { ServiceDeps } from '../deps.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';

/**
 * Server software for Nodes: a checksum a Node asks for is served when some server of the fleet
 * runs software (or an update is installing software) whose listed download has it, so a Node can make the
 * Controller fetch only software in use, and only from where the upstream lists it (or serve what
 * it made itself: an installer's output, a modpack's files). Plugins are
 * asked first (`plugins`), then this.
 */
export class SoftwareArtifacts implements ArtifactProvider {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly templates: TemplateCatalog,
    private readonly store: ArtifactStore,
    private readonly plugins: ArtifactProvider,
  ) {}

  async artifactFor(nodeId: string, key: ArtifactKey): Promise<string | undefined> {
    const plugin = await this.plugins.artifactFor(nodeId, key);
    if (plugin) return plugin;
    const seen = new Set<string>();
    const servers = await this.deps.repos.servers.findShared({});
    // What servers run, and what an update is installing.
    for (const software of servers.flatMap((s) => [s.desired.software, ...(s.workflow?.toSoftware ? [s.workflow.toSoftware] : [])])) {
      const id = `${software.template} ${software.version} ${software.build ?? ''}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const resolved = this.templates.resolve(software);
      if ('problem' in resolved) continue;
      for (const download of [...(resolved.download ? [resolved.download] : []), ...(resolved.companions ?? [])]) {
        if ((key.sha256 && download.sha256 === key.sha256) || (!key.sha256 && key.sha1 && download.sha1 === key.sha1)) return this.store.ensureDownload(download);
      }
      const made = key.sha256 ? resolved.produced?.find((p) => p.sha256 === key.sha256) : undefined;
      if (made) return this.store.ensure({ sha256: made.sha256, sizeBytes: made.size });
    }
    return undefined;
  }
}
