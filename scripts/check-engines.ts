/**
 * `npm run lint:engines`: every package the lock file installs runs on the oldest Node.js the README
 * names (`Node.js 20.19 or newer`), which is also package.json's `engines.node`. A dependency whose
 * `engines` leaves it out warns at `npm ci` and may break on that Node; this fails instead, naming it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };

const named = /Node\.js (\d+\.\d+) or newer/.exec(readme)?.[1];
const problems: string[] = [];
if (!named) problems.push('README.md names no "Node.js <major>.<minor> or newer"');
const oldest = semver.coerce(named ?? '0')!.version;
if (named && semver.minVersion(pkg.engines.node)?.version !== oldest) problems.push(`package.json engines.node "${pkg.engines.node}" does not start at the README's Node.js ${named}`);
for (const [path, info] of Object.entries(lock.packages)) {
  const range = Array.isArray(info.engines) ? undefined : info.engines?.node;
  if (!path || !range) continue;
  if (!semver.satisfies(oldest, range)) problems.push(`${path.replace(/^.*node_modules\//, '')}@${info.version ?? '?'} needs Node.js ${range}`);
}
for (const p of problems) process.stderr.write(`${p}\n`);
process.stdout.write(problems.length ? `${problems.length} engines problem(s) for Node.js ${oldest}\n` : `every locked package runs on Node.js ${oldest}\n`);
process.exitCode = problems.length ? 1 : 0;
