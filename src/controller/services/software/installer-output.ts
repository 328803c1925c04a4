import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { encodeArtifactSet, maxSetFiles, setPathProblem, type ArtifactSetEntry } from '../../../shared/artifact-set.js';
import { placeholdersIn } from '../../../shared/templates.js';
import type { ArtifactStore } from '../../adapters/software/artifact-store.js';
import { argFileOfRunScript, legacyJarArgs, parseArgFile, rewriteLibraryPaths } from '../../domain/installer-args.js';

/** The installer's jar and the log it writes beside itself: not part of what it installed. */
export const installerFile = 'installer.jar';
const leftOut = new Set([installerFile, `${installerFile}.log`]);

/** Why an installer's output is refused, in words for the refusal. */
export class OutputRefused extends Error {}

interface Found extends ArtifactSetEntry {
  absolute: string;
}

/**
 * Every regular file under `dir`, by path relative to it. Anything else is refused: a symbolic
 * link (it could lead the Controller to read and serve a file outside), a file with other hard
 * links (the same), a device or pipe, a path a set cannot hold.
 */
async function walk(dir: string, relative = ''): Promise<Found[]> {
  const found: Found[] = [];
  for (const name of (await readdir(join(dir, relative))).sort()) {
    const path = relative ? `${relative}/${name}` : name;
    if (!relative && leftOut.has(name)) continue;
    const absolute = join(dir, path);
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) throw new OutputRefused(`it left a symbolic link ${path} → ${await readlink(absolute)}`);
    if (info.isDirectory()) {
      found.push(...await walk(dir, path));
      continue;
    }
    if (!info.isFile()) throw new OutputRefused(`it left ${path}, which is not a regular file`);
    if (info.nlink > 1) throw new OutputRefused(`it left ${path} hard-linked to a file elsewhere`);
    const problem = setPathProblem(path);
    if (problem) throw new OutputRefused(`it left a path no file set holds: ${problem}`);
    found.push({ path, absolute, sha256: '', size: info.size, ...(info.mode & 0o111 ? { executable: true } : {}) });
    if (found.length > maxSetFiles) throw new OutputRefused(`it left more than ${maxSetFiles} files`);
  }
  return found;
}

/**
 * How the output is started: the argument file its `run.sh` names (or any `unix_args.txt` under
 * `libraries/`) for 1.17 and later, else the `forge-*.jar` an older Forge leaves in its root.
 */
async function startArgs(dir: string, files: readonly Found[]): Promise<string[]> {
  const script = files.find((f) => f.path === 'run.sh');
  const named = script ? argFileOfRunScript(await readFile(script.absolute, 'utf8')) : undefined;
  const argFile = files.find((f) => f.path === named) ?? files.find((f) => f.path.startsWith('libraries/') && f.path.endsWith('/unix_args.txt'));
  if (argFile) {
    const args = rewriteLibraryPaths(parseArgFile(await readFile(argFile.absolute, 'utf8')));
    if (args.length === 0) throw new OutputRefused(`its ${argFile.path} holds no arguments`);
    const braced = args.find((a) => placeholdersIn(a).length > 0 && !a.includes('{cairnDir}'));
    if (braced) throw new OutputRefused(`its ${argFile.path} holds ${JSON.stringify(braced)}, which reads as a template placeholder`);
    return args;
  }
  const jar = files.find((f) => !f.path.includes('/') && /^forge-.+\.jar$/.test(f.path) && !f.path.endsWith('-installer.jar'));
  if (jar) return legacyJarArgs(jar.path);
  throw new OutputRefused(`it left nothing to start in ${dir} (no run.sh naming an argument file, no libraries/…/unix_args.txt, no forge-*.jar)`);
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * The installer's output moved into the artifact store as one set: each file by its sha256, the
 * manifest too. Answers the manifest, every stored artifact (files and manifest) and the start
 * arguments.
 */
export async function storeInstallerOutput(dir: string, store: Pick<ArtifactStore, 'adopt' | 'tempPath'>) {
  const files = await walk(dir);
  const args = await startArgs(dir, files);
  for (const file of files) {
    file.sha256 = await sha256Of(file.absolute);
    await store.adopt(file.absolute, file.sha256);
  }
  const manifest = encodeArtifactSet(files.map(({ path, sha256, size, executable }) => ({ path, sha256, size, ...(executable ? { executable } : {}) })));
  const temp = await store.tempPath();
  await writeFile(temp, manifest.text, { mode: 0o600 });
  await store.adopt(temp, manifest.sha256);
  const produced = new Map([...files, manifest].map((f) => [f.sha256, { sha256: f.sha256, size: f.size }]));
  return { tree: { sha256: manifest.sha256, size: manifest.size }, produced: [...produced.values()], args, files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
}
