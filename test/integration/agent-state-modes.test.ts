import { expect } from 'chai';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';

const MiB = 2 ** 20;
const asRoot = process.getuid?.() === 0;

/** Every entry under `dir` but what `skip` names, as its path relative to `top`, its kind and its mode. */
async function modesUnder(top: string, skip: (rel: string) => boolean): Promise<{ path: string; kind: string; mode: string }[]> {
  const found: { path: string; kind: string; mode: string }[] = [];
  const visit = async (path: string): Promise<void> => {
    const rel = relative(top, path);
    if (skip(rel)) return;
    const info = await lstat(path).catch(() => undefined);
    if (!info) return;
    const kind = info.isDirectory() ? 'dir' : info.isFile() ? 'file' : info.isSocket() ? 'socket' : info.isSymbolicLink() ? 'link' : 'other';
    found.push({ path: rel || '.', kind, mode: (info.mode & 0o777).toString(8).padStart(4, '0') });
    if (info.isDirectory()) for (const name of await readdir(path).catch(() => [] as string[])) await visit(join(path, name));
  };
  await visit(top);
  return found;
}

// Boxed games (the case 0700 directories could break) need root; elsewhere the Agent runs them as itself.
(asRoot ? describe : describe.skip)('the Agent\'s own files: 0600, and their directories 0700 (contract: Security defaults)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let serverId: string;

  before(async () => {
    f = await startFleet({ agentArgs: ['--isolation', 'auto', '--game-uids', '310000-319999'] });
    const created = await f.admin.post<ServerDetail>('/servers', {
      name: 'modes', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: 256 * MiB },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid !== undefined, 'RUNNING', 60_000);
  });
  after(async () => {
    await f.dispose();
    await removeGameCgroups([serverId]);
  });

  /**
   * Everything under the data dir but the exceptions, which are the game's: its root (its uid's, its
   * modes) and the installed software beside it, which its uid must be able to read.
   */
  async function wrongModes(expected: string[]) {
    const games = (rel: string) => /^servers\/[^/]+\/(root|software)(\/|$)/.test(rel);
    const entries = await modesUnder(f.agentDir, games);
    expect(entries.map((e) => e.path)).to.include.members(expected);
    return entries.filter((e) => e.mode !== (e.kind === 'dir' ? '0700' : '0600'));
  }

  it('a running boxed server: every file the Agent and its supervisor wrote outside the game\'s root is 0600, every directory 0700', async () => {
    const state = `servers/${serverId}/state`;
    const wrong = await wrongModes(['servers', `servers/${serverId}`, `servers/${serverId}/applied.json`, state, `${state}/shim.pid`, `${state}/game.pid`, `${state}/run.json`, `${state}/shim.sock`, `${state}/launch.json`]);
    expect(wrong, JSON.stringify(wrong, null, 1)).to.deep.equal([]);
  });

  it('and once it has stopped, its exit records too', async () => {
    expect((await f.admin.post(`/servers/${serverId}/stop`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'STOPPED' && s.observedGeneration === s.generation, 'STOPPED', 60_000);
    const wrong = await wrongModes([`servers/${serverId}/state/last-exit.json`]);
    expect(wrong, JSON.stringify(wrong, null, 1)).to.deep.equal([]);
  });
});
