// With its extension: the unit tests type-check this file under Node's module resolution.
import type { TemplateSummary } from '../../api/types.js';

type Choice = Pick<TemplateSummary, 'id' | 'versions' | 'order' | 'versionsFrom' | 'syncError'>;

/** A template whose list of versions is its own or came from a sync that just worked: a server of it can install now. */
export const installableNow = (t: Choice) =>
  t.versions.length > 0 && (t.versionsFrom === undefined || (t.versionsFrom === 'UPSTREAM' && t.syncError === undefined));

const group = (t: Choice) => (installableNow(t) ? 0 : t.versions.length > 0 ? 1 : 2);

/**
 * What works now first, so the form never opens on a template it cannot install: templates that
 * can install now, then those offering versions their upstream may not serve (a failed sync),
 * then those with none; within each, the templates' own order (Paper before Folia), then id.
 */
export function orderTemplates<T extends Choice>(templates: readonly T[]): T[] {
  return [...templates].sort((a, b) => group(a) - group(b) || (a.order ?? 100) - (b.order ?? 100) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A warning about the chosen template's versions, in words: why its list is empty, or that the
 * last sync failed and the list may offer what cannot be downloaded now. Undefined when all is well.
 */
export function versionsWarning(t: Choice | undefined): string | undefined {
  if (!t || t.versionsFrom === undefined) return undefined;
  const failed = t.syncError ? `The last version sync failed: ${t.syncError}.` : undefined;
  const reach = 'Creating a server of it needs the Controller to reach its vendor over HTTPS, or a mirror named with --software-source; then sync versions.';
  if (t.versions.length === 0) {
    return `No versions to offer: ${t.versionsFrom === 'SNAPSHOT' ? 'no sync has succeeded yet and the list shipped with Cairn has none for this template' : 'its upstream lists none'}. ${failed ?? ''} ${reach}`.replace(/\s+/g, ' ').trim();
  }
  if (!failed) return undefined;
  const from = t.versionsFrom === 'SNAPSHOT' ? 'These versions come from the list shipped with Cairn, not from the vendor' : 'These versions are from the last sync that worked';
  return `${failed} ${from}: installing one will fail until the Controller reaches its vendor over HTTPS, or a mirror named with --software-source.`;
}
