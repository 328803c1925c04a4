import type { Page, TemplateVersion } from './api-types.js';
import type { CliClient } from './client.js';
import { CliError, UsageError } from './errors.js';

/** The template whose versions are a Modrinth project's, `<slug>:<version id>`. */
export const modpackTemplate = 'modrinth';

/** What `cairn create server` names its software with: a template and version (and build), or a modpack. */
export interface SoftwareFlags {
  template?: string;
  version?: string;
  build?: string;
  modpack?: string;
}

export type SoftwareChoice =
  | { kind: 'template'; software: { template: string; version: string; build?: string } }
  | { kind: 'modpack'; project: string; versionId?: string };

/** Checks the flags before anything is asked of the Controller: a modpack fixes template, version and loader, so it takes none of them. */
export function softwareChoice(flags: SoftwareFlags): SoftwareChoice {
  if (flags.modpack !== undefined) {
    const given = (['template', 'version', 'build'] as const).filter((k) => flags[k] !== undefined).map((k) => `--${k}`);
    if (given.length) throw new UsageError(`--modpack cannot be combined with ${given.join(', ')}: the pack's version fixes the template, game version and loader`);
    const [project, versionId, ...rest] = flags.modpack.split(':');
    if (!project || rest.length || versionId === '') throw new UsageError(`--modpack ${flags.modpack}: give SLUG or SLUG:VERSION (a Modrinth project slug and one of its version ids)`);
    return { kind: 'modpack', project, versionId };
  }
  if (flags.template === undefined || flags.version === undefined) throw new UsageError('give --template and --version (with --build for a loader or build), or --modpack SLUG[:VERSION]');
  return { kind: 'template', software: { template: flags.template, version: flags.version, ...(flags.build === undefined ? {} : { build: flags.build }) } };
}

/** The `software` to send: a modpack without a version takes the newest the Controller lists for the project. */
export async function softwareOf(client: CliClient, choice: SoftwareChoice): Promise<{ template: string; version: string; build?: string }> {
  if (choice.kind === 'template') return choice.software;
  if (choice.versionId !== undefined) return { template: modpackTemplate, version: `${choice.project}:${choice.versionId}` };
  const query = new URLSearchParams({ project: choice.project, limit: '1' });
  const newest = (await client.get<Page<TemplateVersion>>(`/templates/${modpackTemplate}/versions?${query.toString()}`)).items.at(0);
  if (!newest) throw new CliError(`modpack ${choice.project} lists no versions`);
  return { template: modpackTemplate, version: newest.version };
}
