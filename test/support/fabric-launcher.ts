import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { javaGameRelease } from './java-game.js';
import { repoRoot } from './run-program.js';

const run = promisify(execFile);

/** The source of the fake launcher (test/fixtures/fabric-launcher/FabricLauncher.java): see its comment for what it does. */
const sourceFile = join(repoRoot, 'test', 'fixtures', 'fabric-launcher', 'FabricLauncher.java');

/**
 * A fake Fabric server launcher jar for a game and loader version, built with the JDK's `javac` and
 * `jar` (Main-Class FabricLauncher, `install.properties` inside as the meta API writes it). `rebuilt`
 * makes a jar of the same versions with other bytes: a launcher the upstream changed.
 */
export async function fabricLauncherJar(game: string, loader: string, rebuilt = false): Promise<Buffer> {
  const work = await mkdtemp(join(tmpdir(), 'cairn-fabric-launcher-'));
  try {
    await mkdir(join(work, 'classes'));
    await run('javac', ['--release', String(javaGameRelease), '-d', join(work, 'classes'), sourceFile]);
    await writeFile(join(work, 'classes', 'install.properties'), `fabric-loader-version=${loader}\ngame-version=${game}\n${rebuilt ? 'rebuilt=true\n' : ''}`);
    const made = join(work, 'launcher.jar');
    await run('jar', ['--create', '--file', made, '--main-class', 'FabricLauncher', '--date', '2020-01-01T00:00:02Z', '-C', join(work, 'classes'), '.']);
    return await readFile(made);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
