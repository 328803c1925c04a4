import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { localAgentDir } from '../../src/controller/program/local-agent-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The top-level directories .gitignore ignores: `name/` or `/name/` lines, the only form it uses for them. */
async function ignoredTopDirs(): Promise<Set<string>> {
  const lines = (await readFile(new URL('../../.gitignore', import.meta.url), 'utf8')).split('\n').map((l) => l.trim());
  return new Set(lines.filter((l) => /^\/?[^/*#!]+\/$/.test(l)).map((l) => l.replace(/^\//, '').replace(/\/$/, '')));
}

/**
 * `npm start` (scripts/start.js) runs the Controller with `--local-agent` from the checkout, so its
 * data dirs land there; `git clean -fd` deletes whatever is not ignored, the local Node's servers too.
 */
describe('.gitignore: the directories npm start writes in the checkout', () => {
  it('ignores the Controller data dir, the local Agent data dir beside it, and dist/', async () => {
    const cwd = process.cwd();
    process.chdir(root);
    let config;
    try {
      config = parseControllerConfig(['--local-agent'], {});
    } finally {
      process.chdir(cwd);
    }
    const dirs = [config.dataDir, localAgentDir(config.dataDir)].map((dir) => relative(root, dir));
    const ignored = await ignoredTopDirs();
    for (const dir of [...dirs, 'dist']) expect(ignored, dir).to.include(dir);
  });
});
