import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HandlePool, readAt } from '../../src/controller/store/embedded/audit/handle-pool.js';

describe('HandlePool: audit files shared by searches', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'cairn-handle-pool-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('closes a file a read is still using only once that read is done', async () => {
    const file = join(dir, 'a');
    await writeFile(file, 'hello world');
    const pool = new HandlePool(4);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let closedMeanwhile: unknown;
    const reading = pool.use(file, async (handle) => {
      await held;
      const text = (await readAt(handle, Buffer.alloc(5), 6)).toString();
      await handle.stat().catch((e: unknown) => (closedMeanwhile = e));
      return text;
    });
    const other = join(dir, 'b');
    await writeFile(other, 'xy');
    expect((await pool.use(other, (handle) => readAt(handle, Buffer.alloc(8), 0)))!.toString()).to.equal('xy');
    await pool.closeAll();
    release();
    expect(await reading).to.equal('world');
    expect(closedMeanwhile).to.equal(undefined);
  });
});
