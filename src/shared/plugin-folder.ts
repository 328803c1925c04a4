/** Platforms that load mods, not plugins: their servers read jars from `mods/`. */
const modLoaderPlatforms = new Set(['fabric', 'neoforge', 'forge', 'quilt']);

export type PluginFolder = 'plugins' | 'mods';

/** Where a server of this template platform loads installed jars from: `mods/` for a mod loader, `plugins/` for the rest. */
export const pluginFolderOf = (platform: string | undefined): PluginFolder => (platform !== undefined && modLoaderPlatforms.has(platform.toLowerCase()) ? 'mods' : 'plugins');

