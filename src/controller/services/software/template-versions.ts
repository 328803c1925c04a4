import { invalidRequest } from '../../core/errors.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import type { ModpackService } from './modpacks.js';
import type { SoftwareService } from './software.js';

/**
 * `GET /templates/{id}/versions`: a modpack template's versions are one project's (`project`),
 * asked of Modrinth; every other template's are its listing's.
 */
export class TemplateVersions {
  constructor(private readonly templates: TemplateCatalog, private readonly software: SoftwareService, private readonly modpacks: ModpackService) {}

  versions(templateId: string, query: { limit: number; cursor?: string; project?: string }) {
    const { project, ...page } = query;
    const versions = this.templates.get(templateId)?.versions;
    if (versions && !Array.isArray(versions) && versions.source === 'modrinth') return this.modpacks.versions(project, page);
    if (project !== undefined) throw invalidRequest(`query.project: only a modpack template's versions are listed per project; ${templateId} lists its own.`);
    return this.software.versions(templateId, page);
  }
}
