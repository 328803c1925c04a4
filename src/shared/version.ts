import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface PackageJson {
  name?: string;
  version?: string;
  license?: string;
  homepage?: string;
}

/** This installation's package.json, read once (two levels up from src/ or dist/src/). */
function readPackage(): PackageJson {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')) as PackageJson;
      if (pkg.name === 'cairn' && pkg.version) return pkg;
    } catch {
      // try the next candidate location
    }
  }
  return {};
}

const cairnPackage = readPackage();
export const cairnVersion = cairnPackage.version ?? '0.0.0';
/** The package's license (an SPDX expression, or `UNLICENSED`). */
export const cairnLicense = cairnPackage.license ?? 'UNLICENSED';
/** Where the project lives, named in the User-Agent of requests to upstreams. */
export const cairnHomepage = cairnPackage.homepage ?? 'https://github.com/cairn-hosting/cairn';
