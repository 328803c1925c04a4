import { expect } from 'chai';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildInputs, buildOutputs, freshness, inputFingerprint, outputsPresent, readStamp, removeStamp, stampFile, writeStamp } from '../../scripts/build-freshness.js';

/** `npm start` decides between building and not on a copy of the layout it reads, in a temp dir. */
describe('npm start: build only when the build is missing or stale', () => {
  let root: string;
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };
  const decide = async () => freshness({ outputsPresent: outputsPresent(root), stamp: await readStamp(root), fingerprint: await inputFingerprint(root) });
  const build = async () => {
    for (const output of buildOutputs) await put(output, 'built');
    await writeStamp(root, await inputFingerprint(root));
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'cairn-freshness-'));
    await put('src/controller/main.ts', 'export {};');
    await put('src/web/src/App.tsx', 'export {};');
    await put('tsconfig.json', '{}');
    await put('package-lock.json', '{}');
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('reads the sources, the web UI, the compiler settings and the lock file; not templates or proto, which are read at run time', () => {
    expect(buildInputs).to.include.members(['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']);
    expect(buildInputs).to.not.include.members(['templates', 'proto']);
  });

  it('no dist/ at all, or part of it gone: missing', async () => {
    expect(await decide()).to.equal('missing');
    await build();
    await rm(join(root, 'dist', 'web', 'index.html'));
    expect(await decide()).to.equal('missing');
  });

  it('built and unchanged: fresh, even after a checkout or touch moved every mtime', async () => {
    await build();
    expect(await decide()).to.equal('fresh');
    const later = new Date(Date.now() + 60_000);
    await utimes(join(root, 'src', 'controller', 'main.ts'), later, later);
    expect(await decide()).to.equal('fresh');
  });

  it('a source, web UI, tsconfig or lock file changed, or a file added or removed: stale', async () => {
    const changes: (() => Promise<void>)[] = [
      () => put('src/controller/main.ts', 'export const x = 1;'),
      () => put('src/web/src/App.tsx', 'export const y = 2;'),
      () => put('tsconfig.json', '{"compilerOptions":{}}'),
      () => put('package-lock.json', '{"lockfileVersion":3}'),
      () => put('src/controller/new-file.ts', 'export {};'),
      () => rm(join(root, 'src', 'web', 'src', 'App.tsx')),
    ];
    for (const change of changes) {
      await build();
      expect(await decide()).to.equal('fresh');
      await change();
      expect(await decide(), change.toString()).to.equal('stale');
    }
  });

  it('changes outside the inputs (templates, proto, data) leave it fresh', async () => {
    await build();
    await put('templates/simcraft.json', '{}');
    await put('proto/cairn/agent/v1/agent.proto', 'syntax = "proto3";');
    await put('data/store/users.db', '{}');
    expect(await decide()).to.equal('fresh');
  });

  it('built but never stamped, the stamp removed before a build that then failed, or a stamp that does not parse: stale', async () => {
    await build();
    await removeStamp(root);
    expect(await decide()).to.equal('stale');
    await put(stampFile, '{"fingerprint":');
    expect(await decide()).to.equal('stale');
  });

  it('fingerprints the same tree the same way whatever the order files were written in', async () => {
    const first = await inputFingerprint(root);
    await rm(join(root, 'src'), { recursive: true });
    await put('src/web/src/App.tsx', 'export {};');
    await put('src/controller/main.ts', 'export {};');
    expect(await inputFingerprint(root)).to.equal(first);
  });
});
