import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adoptBySha512 } from '../../src/controller/adapters/plugins/sha512-jar.js';
import { ArtifactStore, ArtifactUnavailableError } from '../../src/controller/adapters/software/artifact-store.js';
import { silentLogger } from '../../src/shared/logger.js';

const hash = (algorithm: string, b: Buffer) => createHash(algorithm).update(b).digest('hex');

describe('a jar listed by sha512 only (Modrinth): checked at its first install, kept by sha256', () => {
  const jar = Buffer.from('a mod jar, or close enough');
  let dir: string;
  let http: Server;
  let url: string;
  let store: ArtifactStore;

  before(async () => {
    http = createServer((_req, res) => res.end(jar));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mod.jar`;
  });
  after(async () => new Promise<void>((resolve) => http.close(() => resolve())));
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sha512-'));
    store = new ArtifactStore(dir, silentLogger);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('answers the sha256 of bytes whose size and sha512 match, and stores them under it', async () => {
    const sum = await adoptBySha512(store, { url, sha512: hash('sha512', jar), size: jar.length });
    expect(sum).to.equal(hash('sha256', jar));
    expect(await readFile(store.path(sum))).to.deep.equal(jar);
  });

  it('refuses a wrong sha512 or a wrong size and keeps nothing', async () => {
    for (const listed of [{ sha512: 'f'.repeat(128), size: jar.length }, { sha512: hash('sha512', jar), size: jar.length + 1 }, { sha512: hash('sha512', jar), size: jar.length - 1 }]) {
      const error = await adoptBySha512(store, { url, ...listed }).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(ArtifactUnavailableError);
      expect((error as Error).message).to.match(/sha512|larger than/);
    }
    expect((await readdir(dir)).filter((n) => n.endsWith('.jar'))).to.deep.equal([]);
  });
});
