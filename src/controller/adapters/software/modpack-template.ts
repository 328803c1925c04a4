import type { ArtifactSetRefSpec } from '../../../shared/artifact-set.js';
import type { Template } from '../../../shared/templates.js';
import type { ResolvedSoftware } from './template-catalog.js';

/**
 * A modpack version's software as an Agent installs it: the loader's resolved software (its
 * launcher or installer output, its run command) under the pack's template id and version, so
 * the Agent's installed marker reports `modrinth <slug>:<id>`, with the pack's file set placed
 * into the server's root and every file the Controller read from the pack served by checksum.
 */
export function composePackSoftware(pack: Template, version: string, read: { pack: ArtifactSetRefSpec; produced: readonly { sha256: string; size: number }[] }, loader: ResolvedSoftware): ResolvedSoftware {
  const { install } = loader.template;
  // The loader's one artifact is keyed by the version the Agent is asked to install.
  const packInstall = install.source === 'download' ? { ...install, artifacts: { [version]: Object.values(install.artifacts)[0] } } : install;
  return {
    template: {
      ...loader.template,
      id: pack.id,
      name: pack.name,
      ...(pack.description ? { description: pack.description } : {}),
      versions: [version],
      install: packInstall,
      pack: read.pack,
    },
    ...(loader.download ? { download: loader.download } : {}),
    ...(loader.companions ? { companions: loader.companions } : {}),
    produced: [...(loader.produced ?? []), ...read.produced],
  };
}
