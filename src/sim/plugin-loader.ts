import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsoleLog } from './console-log.js';
import { readPluginDescriptor, type PluginDescriptor } from './plugin-descriptor.js';

/** Reads `plugins/*.jar` in name order; a jar without a readable descriptor is reported and skipped. */
export async function loadPlugins(serverDir: string, log: ConsoleLog): Promise<PluginDescriptor[]> {
  let names: string[];
  try {
    names = (await readdir(join(serverDir, 'plugins'))).filter((n) => n.toLowerCase().endsWith('.jar')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const plugins: PluginDescriptor[] = [];
  for (const name of names) {
    try {
      plugins.push(await readPluginDescriptor(join(serverDir, 'plugins', name)));
    } catch (error) {
      log.error(`Could not load 'plugins/${name}' in folder 'plugins': ${(error as Error).message}`);
    }
  }
  log.info(`[PluginInitializerManager] Initialized ${plugins.length} plugin${plugins.length === 1 ? '' : 's'}`);
  return plugins;
}
