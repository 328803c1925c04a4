import { expect } from 'chai';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestController, testStoreIsMongo, type TestController } from '../support/controller.js';

describe('a Controller killed mid-backup: its next start collects what the backup left', function () {
  this.timeout(30_000);
  let t: TestController | undefined;

  before(function () {
    // GridFS leaves no temporary files; the embedded store's directory is what this looks at.
    if (testStoreIsMongo) this.skip();
  });
  after(async () => t?.dispose());

  it('removes every temporary blob and manifest file, however fresh, before backups run', async () => {
    const first = await startTestController();
    t = first;
    const store = join(first.dataDir, 'backups', (await first.controller.services.backups.destinations.builtin())._id);
    await mkdir(join(store, 'blobs', 'ab'), { recursive: true });
    await mkdir(join(store, 'manifests'), { recursive: true });
    await writeFile(join(store, 'blobs', 'ab', `${'ab'.repeat(32)}.blob.0000.partial`), 'half a blob');
    await writeFile(join(store, 'manifests', 'cut.json.0000.partial'), '{');
    t = await first.restart();
    expect(await readdir(join(store, 'blobs', 'ab'))).to.deep.equal([]);
    expect(await readdir(join(store, 'manifests'))).to.deep.equal([]);
  });
});
