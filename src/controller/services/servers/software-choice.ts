import { invalidRequest } from '../../core/errors.js';
import type { ServerSoftware } from '../../domain/server-spec.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';

/**
 * The software a request names, checked against what its template lists now, with the build
 * written down: the newest listed one when none is named, so a later build never arrives unasked
 * (an update does that). What has no published checksum is fetched and pinned first (Fabric's
 * launcher). Answers the template and the pinned choice; `field` prefixes refusals.
 */
export async function chooseSoftware(templates: TemplateCatalog, software: ServerSoftware, field = 'body.software') {
  const template = templates.get(software.template);
  if (!template) throw invalidRequest(`${field}.template: no template ${software.template}.`);
  const unprepared = await templates.prepare(software);
  if (unprepared) throw invalidRequest(`${field}.${unprepared.field}: ${unprepared.problem}.`);
  const resolved = templates.resolve(software);
  if ('problem' in resolved) {
    const offered = templates.versionsOf(template.id).slice(0, 5).map((v) => v.version);
    const which = software.build !== undefined && templates.supports(template.id, software.version) ? 'build' : 'version';
    throw invalidRequest(`${field}.${which}: ${resolved.problem}${offered.length ? ` (newest: ${offered.join(', ')}; all in GET /templates/${template.id}/versions)` : ''}.`);
  }
  return { template, software: resolved.build ? { ...software, build: resolved.build } : software };
}
