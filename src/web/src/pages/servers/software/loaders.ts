// With its extension: the unit tests type-check this file under Node's module resolution.
import type { ServerModpack } from '../../../api/types.js';

/**
 * The contract's mod-loader templates: for them a version is the game version and `build` the
 * loader version, so the UI says "Loader version" where other templates say "Build".
 */
const loaderNames: Record<string, string> = { fabric: 'Fabric', neoforge: 'NeoForge', forge: 'Forge' };

export const isLoaderTemplate = (templateId: string | undefined) => templateId !== undefined && Object.hasOwn(loaderNames, templateId);

/** The label of the select of a version's builds. */
export const buildLabel = (templateId: string | undefined) => (isLoaderTemplate(templateId) ? 'Loader version' : 'Build');

/** `Fabric 0.16.10`: a loader template and its version, in words (only its name while a pack's listing does not say the version). */
export const loaderText = (loader: { template: string; build?: ServerModpack['loader']['build'] }) =>
  [Object.hasOwn(loaderNames, loader.template) ? loaderNames[loader.template] : loader.template, loader.build].filter(Boolean).join(' ');

/** `1.2M`: a pack's downloads, short. */
export function downloadsText(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1).replace(/\.0$/, '')}k`;
  return String(n);
}
