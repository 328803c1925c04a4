import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './run-program.js';

const run = promisify(execFile);

/** The source of the game (test/fixtures/java-game/JavaGame.java): see its comment for what it does. */
const sourceFile = join(repoRoot, 'test', 'fixtures', 'java-game', 'JavaGame.java');
/** Class files target the oldest Java the tests declare (17), whichever JDK compiles them. */
export const javaGameRelease = 17;

let compiled: Promise<string> | undefined;

/**
 * The compiled classes, made once per source (cached in the temp dir by the source's hash, shared by
 * concurrent test runs: each compiles beside it and renames into place, the first one wins).
 */
function classesDir(): Promise<string> {
  compiled ??= (async () => {
    const source = await readFile(sourceFile);
    const hash = createHash('sha256').update(source).update(String(javaGameRelease)).digest('hex').slice(0, 16);
    const dir = join(tmpdir(), `cairn-java-game-${hash}`);
    if (existsSync(join(dir, 'classes', 'JavaGame.class'))) return dir;
    const work = await mkdtemp(join(tmpdir(), 'cairn-java-game-build-'));
    try {
      await mkdir(join(work, 'classes'));
      await run('javac', ['--release', String(javaGameRelease), '-d', join(work, 'classes'), sourceFile]);
      await rename(work, dir).catch((e: unknown) => {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return dir;
  })();
  return compiled;
}

/**
 * A runnable jar of the game (Main-Class JavaGame) whose `build.txt` says `build`: jars of two
 * builds differ in bytes and sha256; the same build gives the same bytes (fixed entry dates).
 */
export async function javaGameJar(build: string): Promise<Buffer> {
  if (!/^[A-Za-z0-9._-]+$/.test(build)) throw new Error(`build ${build} is not a plain name`);
  const dir = await classesDir();
  const jarFile = join(dir, `${build}.jar`);
  if (existsSync(jarFile)) return readFile(jarFile);
  const work = await mkdtemp(join(dir, 'jar-'));
  try {
    await writeFile(join(work, 'build.txt'), `${build}\n`);
    const made = join(work, 'game.jar');
    await run('jar', ['--create', '--file', made, '--main-class', 'JavaGame', '--date', '2020-01-01T00:00:02Z', '-C', join(dir, 'classes'), '.', '-C', work, 'build.txt']);
    await rename(made, jarFile);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return readFile(jarFile);
}
