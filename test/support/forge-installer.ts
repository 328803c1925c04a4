import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yazl from 'yazl';
import { javaGameJar, javaGameRelease } from './java-game.js';
import { repoRoot } from './run-program.js';

const run = promisify(execFile);

/** The source of the fake installer (test/fixtures/forge-installer/ForgeInstaller.java): see its comment for what it does. */
const sourceFile = join(repoRoot, 'test', 'fixtures', 'forge-installer', 'ForgeInstaller.java');

export type FakeInstallerMode = 'ok' | 'legacy' | 'hang' | 'fail' | 'escape' | 'symlink';

/** Fixed entry dates: the same inputs give the same bytes. */
const entryDate = new Date('2020-01-01T00:00:02Z');

async function zip(entries: Record<string, Buffer>): Promise<Buffer> {
  const file = new yazl.ZipFile();
  for (const [name, bytes] of Object.entries(entries)) file.addBuffer(bytes, name, { mtime: entryDate });
  file.end();
  const chunks: Buffer[] = [];
  for await (const chunk of file.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

let compiled: Promise<Buffer> | undefined;

/** ForgeInstaller.class, compiled once per test process with the JDK's `javac`. */
function installerClass(): Promise<Buffer> {
  compiled ??= (async () => {
    const work = await mkdtemp(join(tmpdir(), 'cairn-forge-installer-'));
    try {
      await run('javac', ['--release', String(javaGameRelease), '-d', work, sourceFile]);
      return await readFile(join(work, 'ForgeInstaller.class'));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  })();
  return compiled;
}

/**
 * A fake NeoForge or Forge installer jar for one Maven version (Main-Class ForgeInstaller),
 * holding the fake game's jar (build `<kind>-<version>`) as the loader's server jar and a small
 * library jar. `escapeTo` is where mode `escape` writes.
 */
export async function forgeInstallerJar(kind: 'neoforge' | 'forge', version: string, mode: FakeInstallerMode = 'ok', escapeTo = ''): Promise<Buffer> {
  const manifest = (main?: string) => Buffer.from(`Manifest-Version: 1.0\r\n${main ? `Main-Class: ${main}\r\n` : ''}\r\n`);
  const library = await zip({ 'META-INF/MANIFEST.MF': manifest(), 'library.txt': Buffer.from('a library the loader needs\n') });
  return zip({
    'META-INF/MANIFEST.MF': manifest('ForgeInstaller'),
    'ForgeInstaller.class': await installerClass(),
    'installer.properties': Buffer.from(`kind=${kind}\nversion=${version}\nmode=${mode}\nescapeTo=${escapeTo}\n`),
    'server.jar': await javaGameJar(`${kind}-${version}`),
    'library.jar': library,
  });
}
