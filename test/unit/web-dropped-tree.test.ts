import { expect } from 'chai';
import { readDrop, type DroppedEntry } from '../../src/web/src/pages/servers/tabs/files/dropped-tree.js';

const fileEntry = (fullPath: string, content: string): DroppedEntry => ({
  isDirectory: false, fullPath,
  file: (ok) => ok(new File([content], fullPath.split('/').pop()!)),
});

/** A folder whose reader answers `batch` entries at a time, then an empty batch, as Chromium's does (100 at a time). */
const folderEntry = (fullPath: string, children: DroppedEntry[], batch = 2): DroppedEntry => ({
  isDirectory: true, fullPath,
  createReader: () => {
    let at = 0;
    return {
      readEntries: (ok) => {
        const next = children.slice(at, at + batch);
        at += next.length;
        setTimeout(() => ok(next), 0);
      },
    };
  },
});

describe('web UI: a folder dropped onto the Files tab', () => {
  it('reads every file with its place in the folder, past the first batch of entries, and keeps empty folders', async () => {
    const world = folderEntry('/world', [
      fileEntry('/world/level.dat', 'level'),
      folderEntry('/world/region', [fileEntry('/world/region/r.0.0.mca', 'r00'), fileEntry('/world/region/r.0.1.mca', 'r01'), fileEntry('/world/region/r.1.0.mca', 'r10')]),
      folderEntry('/world/empty', []),
      fileEntry('/world/session.lock', ''),
    ]);
    const tree = await readDrop({ folders: [world], files: [{ file: new File(['loose'], 'notes.txt'), relativePath: 'notes.txt' }] });
    expect(tree.items.map((i) => i.relativePath)).to.deep.equal([
      'notes.txt', 'world/level.dat', 'world/region/r.0.0.mca', 'world/region/r.0.1.mca', 'world/region/r.1.0.mca', 'world/session.lock',
    ]);
    expect(await tree.items[3].file.text()).to.equal('r01');
    expect(tree.directories).to.deep.equal(['world', 'world/region', 'world/empty']);
  });

  it('fails with the browser\'s error when a file cannot be read', async () => {
    const broken: DroppedEntry = { isDirectory: false, fullPath: '/gone.txt', file: (_ok, fail) => fail(new Error('NotFoundError')) };
    let failed: unknown;
    await readDrop({ folders: [folderEntry('/dir', [broken])], files: [] }).catch((e: unknown) => { failed = e; });
    expect((failed as Error).message).to.equal('NotFoundError');
  });
});
