import { AgentError } from '../errors.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { Installer } from './installer.js';

const sha256Pattern = /^[0-9a-f]{64}$/;
const sha1Pattern = /^[0-9a-f]{40}$/;

/** The Controller's words for bytes that are not what the listing says, as ArtifactStore and the Agent's own checks put them. */
const mismatch = /mismatch|got \d+ bytes with/i;

/**
 * PrefetchArtifact: an update has the new software put in the download cache before it stops the
 * server, so a slow or failing download costs no downtime. The answer carries the cause (the
 * Controller's own, relayed by FetchArtifact) rather than INTERNAL, for the update's UPDATE_FAILED.
 */
export function registerPrefetch(link: AgentLinkClient, installer: Pick<Installer, 'prefetch'>): void {
  link.handle('prefetchArtifact', async ({ sha256, sha1, size }) => {
    if (sha256 ? !sha256Pattern.test(sha256) : !sha1Pattern.test(sha1)) {
      throw new AgentError('INVALID_REQUEST', 'Give sha256 as 64 lower-case hex digits, or sha1 as 40.');
    }
    try {
      await installer.prefetch({ ...(sha256 ? { sha256 } : { sha1 }), ...(size > 0 ? { size } : {}) });
    } catch (e) {
      if (e instanceof AgentError) throw e;
      const message = e instanceof Error ? e.message : String(e);
      throw new AgentError(mismatch.test(message) ? 'CHECKSUM_MISMATCH' : 'UNAVAILABLE', message);
    }
    return {};
  });
}
