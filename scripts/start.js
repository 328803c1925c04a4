import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshness, inputFingerprint, outputsPresent, readStamp, removeStamp } from './build-freshness.js';

/**
 * `npm start`: builds only when dist/ is missing or older than its inputs, then runs the built
 * Controller with `--local-agent` and any extra arguments in this same process, so signals reach
 * it directly. Everything but the Controller's listening line goes to stderr.
 */
/** What a person is told while `npm run build` runs. */
const buildingWords = (state) => state === 'missing'
  ? 'Building the web UI and the Controller (first start, about a minute)…'
  : 'Sources changed since the last build: building the web UI and the Controller again (about a minute)…';
const root = fileURLToPath(new URL('..', import.meta.url));
const checkStarted = performance.now();
const state = freshness({ outputsPresent: outputsPresent(root), stamp: await readStamp(root), fingerprint: await inputFingerprint(root) });
const checkMs = Math.round(performance.now() - checkStarted);
// A person at a terminal gets words (the first build is a minute of silence otherwise); a pipe gets the JSON line.
if (!process.stderr.isTTY) process.stderr.write(JSON.stringify({ service: 'cairn-start', event: 'build_check', state, checkMs }) + '\n');
else if (state !== 'fresh') process.stderr.write(`${buildingWords(state)}\n`);
if (state !== 'fresh') {
  // A build that fails half way must not leave a stamp that calls it fresh.
  await removeStamp(root);
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 2, 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const main = join(root, 'dist', 'src', 'controller', 'main.js');
process.argv = [process.argv[0], main, '--local-agent', ...process.argv.slice(2)];
await import(pathToFileURL(main).href);
