/**
 * One sentence for a version sync in which some sources failed: which, why (each distinct reason once:
 * offline, every vendor fails the same way), and what still works.
 */
export function syncFailureWords(failed: readonly { source: string; reason: string }[]): string {
  const reasons = [...new Set(failed.map((f) => f.reason))];
  return `software versions could not be synced for ${failed.map((f) => f.source).join(', ')} (${reasons.join('; ')}); ` +
    'their last good or shipped lists stay in use, and templates that need no download (simcraft) are unaffected';
}
