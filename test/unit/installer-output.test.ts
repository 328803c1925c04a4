import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { link, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArtifactSet } from '../../src/shared/artifact-set.js';
import { OutputRefused, storeInstallerOutput } from '../../src/controller/services/software/installer-output.js';

describe('an installer\'s output as a file set', () => {
  let base: string;
  let dir: string;
  const adopted = new Map<string, string>();
  const store = {
    adopt: async (file: string, sha256: string) => void adopted.set(sha256, await readFile(file, 'utf8')),
    tempPath: async () => join(base, randomUUID()),
  };
  const put = async (path: string, text: string) => {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  };
  const refusal = async () => {
    try {
      await storeInstallerOutput(dir, store);
    } catch (e) {
      expect(e).to.be.instanceOf(OutputRefused);
      return (e as Error).message;
    }
    throw new Error('the output was taken');
  };

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-installer-output-'));
    dir = join(base, 'out');
    await mkdir(dir);
    adopted.clear();
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('stores every file but the installer and its log, with the args of the file run.sh names', async () => {
    await put('installer.jar', 'jar');
    await put('installer.jar.log', 'log');
    await put('libraries/x/1/unix_args.txt', '-p libraries/a.jar Main\n');
    await put('libraries/a.jar', 'a');
    await put('run.sh', 'java @user_jvm_args.txt @libraries/x/1/unix_args.txt "$@"\n');
    const out = await storeInstallerOutput(dir, store);
    expect(out.args).to.deep.equal(['-p', '{cairnDir}/libraries/a.jar', 'Main']);
    const manifest = parseArtifactSet(adopted.get(out.tree.sha256)!);
    if ('problem' in manifest) throw new Error(manifest.problem);
    expect(manifest.files.map((f) => f.path)).to.deep.equal(['libraries/a.jar', 'libraries/x/1/unix_args.txt', 'run.sh']);
    expect(out.produced.map((p) => p.sha256).sort()).to.deep.equal([...adopted.keys()].sort());
  });

  it('refuses an output with nothing to start, a hard link out, or a placeholder in the arguments', async () => {
    await put('libraries/a.jar', 'a');
    expect(await refusal()).to.match(/^it left nothing to start in .* \(no run\.sh naming an argument file, no libraries\/…\/unix_args\.txt, no forge-\*\.jar\)$/);
    await put('libraries/x/unix_args.txt', '-Dx={java} Main');
    expect(await refusal()).to.equal('its libraries/x/unix_args.txt holds "-Dx={java}", which reads as a template placeholder');
    await writeFile(join(base, 'secret'), 's');
    await link(join(base, 'secret'), join(dir, 'leak.txt'));
    expect(await refusal()).to.equal('it left leak.txt hard-linked to a file elsewhere');
  });
});
