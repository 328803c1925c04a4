import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package version, read once from package.json (two levels up from src/ or dist/src/). */
function readVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cairn' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate location
    }
  }
  return '0.0.0';
}

export const cairnVersion = readVersion();
