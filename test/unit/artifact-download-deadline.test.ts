import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/controller/adapters/software/artifact-store.js';
import { silentLogger } from '../../src/shared/logger.js';

describe('a server artifact download past its deadline says what happened', () => {
  let server: Server;
  let base: string;
  let dir: string;
  const download = (path: string) => ({ url: `${base}${path}`, sha256: 'a'.repeat(64), size: 10 });

  before(async () => {
    server = createServer((req, res) => {
      // `/silent` never answers; `/stalls` sends its headers and half the body, then nothing.
      if (req.url === '/stalls') {
        res.writeHead(200, { 'content-length': 10 });
        res.write('12345');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'cairn-artifacts-'));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('an upstream that never answers: "did not answer within" the download\'s own deadline, not the listings\'', async () => {
    const store = new ArtifactStore(dir, silentLogger, undefined, 300);
    const error = await store.ensureDownload(download('/silent')).then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).to.equal(`${new URL(base).host} did not answer within 0.3 s`);
  });

  it('an upstream that stalls mid-way: "did not finish sending", with how much came, and no partial file kept', async () => {
    const store = new ArtifactStore(dir, silentLogger, undefined, 300);
    const error = await store.ensureDownload(download('/stalls')).then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).to.equal(`${base}/stalls did not finish sending within 0.3 s (5 bytes came)`);
    expect(await readdir(join(dir, 'tmp'))).to.deep.equal([]);
  });
});
