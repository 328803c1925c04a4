import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AuditEventPage, Team, User } from '../support/api-types.js';
import { adminCredentials, networkInput } from '../support/controller.js';
import { ControllerProcess } from '../support/controller-process.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const run = promisify(execFile);
const KiB = 1024;

interface Problem { code: string; detail?: string }
interface Readiness { status: string; store: { ok: boolean; writable: boolean; detail?: string } }

/** Writes zeros until the filesystem refuses, in big pieces then in pages, so not a page is left. */
async function fill(file: string): Promise<number> {
  const handle = await open(file, 'w');
  let size = 0;
  try {
    for (const piece of [1024 * KiB, 4 * KiB]) {
      const zeros = Buffer.alloc(piece);
      for (;;) {
        try {
          const { bytesWritten } = await handle.write(zeros, 0, piece, size);
          size += bytesWritten;
          if (bytesWritten < piece) break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break;
        }
      }
    }
  } finally {
    await handle.close();
  }
  return size;
}

describe('a Controller whose data dir fills up (tmpfs)', function () {
  this.timeout(120_000);
  let mountPoint: string;
  let mounted = false;
  let controller: ControllerProcess | undefined;

  before(async function () {
    // Mounting a tmpfs needs root (CI runs as root); elsewhere this cannot run at all.
    if (process.getuid?.() !== 0) {
      console.log('    skipped: mounting a tmpfs needs root');
      this.skip();
    }
    mountPoint = await mkdtemp(join(tmpdir(), 'cairn-full-disk-'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
    mounted = true;
  });

  after(async () => {
    await controller?.kill();
    if (mounted) await run('umount', [mountPoint]);
    if (mountPoint) await rm(mountPoint, { recursive: true, force: true });
  });

  it('refuses writes with 507 and keeps none of them (a 201 is always audited), says so in /readyz, recovers when space is freed, and restarts after SIGKILL on every acknowledged write', async () => {
    const dataDir = join(mountPoint, 'data');
    const filler = join(mountPoint, 'filler');
    await mkdir(dataDir);
    controller = await ControllerProcess.start(dataDir);
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await controller.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
    expect(setup.status, setup.text).to.equal(201);
    let admin: ApiClient = controller.api.withCookie(sessionCookieFrom(setup));
    const kept = await admin.post<Team>('/teams', { name: 'kept' });
    expect(kept.status, kept.text).to.equal(201);

    // Full to the last page, then a little room, so writes fail part way through a line.
    const full = await fill(filler);
    await truncate(filler, full - 48 * KiB);

    const acknowledged = new Map<string, string>();
    const refused: string[] = [];
    for (let i = 0; refused.length < 5; i++) {
      expect(i, 'a write refused within 2,000 creates').to.be.below(2000);
      const name = `team-${i}`;
      const res = await admin.post<Team | Problem>('/teams', { name });
      if (res.status === 201) {
        acknowledged.set(name, (res.body as Team).id);
        continue;
      }
      expect(res.status, res.text).to.equal(507);
      const problem = res.body as Problem;
      expect(problem.code).to.equal('insufficient_storage');
      // A refusal means nothing changed: never a team made whose event found no room.
      expect(problem.detail).to.equal("The Controller's disk is full: nothing was stored.");
      refused.push(name);
    }
    expect(acknowledged.size, 'some creates fit before the disk filled').to.be.above(0);

    const patch = await admin.patch<Problem>(`/teams/${kept.body.id}`, { name: 'renamed' });
    expect(patch.status, patch.text).to.equal(507);

    const visible = async (api: ApiClient) => {
      const names = new Set<string>();
      for (let cursor: string | undefined; ;) {
        const page = await api.get<{ items: Team[]; nextCursor?: string }>(`/teams?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.status, page.text).to.equal(200);
        page.body.items.forEach((t) => names.add(t.name));
        cursor = page.body.nextCursor;
        if (!cursor) return names;
      }
    };
    const whileFull = await visible(admin);
    for (const name of acknowledged.keys()) expect(whileFull.has(name), `${name} (201) visible`).to.equal(true);
    for (const name of refused) expect(whileFull.has(name), `${name} (507) not visible`).to.equal(false);
    expect(whileFull.has('kept')).to.equal(true);
    expect(whileFull.has('renamed')).to.equal(false);

    const unready = await controller.api.get<Readiness>('/readyz');
    expect(unready.status).to.equal(503);
    expect(unready.body.store.writable).to.equal(false);
    expect(unready.body.store.detail).to.match(/disk is full \((ENOSPC|EDQUOT)\)/);

    await unlink(filler);
    await waitFor(async () => (await controller!.api.get<Readiness>('/readyz')).status === 200, { timeoutMs: 10_000, what: '/readyz 200 once space is freed' });
    const ready = await controller.api.get<Readiness>('/readyz');
    expect(ready.body.store).to.deep.equal({ ok: true, writable: true });
    const after = await admin.post<Team>('/teams', { name: 'after' });
    expect(after.status, after.text).to.equal(201);
    acknowledged.set('after', after.body.id);

    // Every acknowledged create has its audit event.
    const audited = new Set<string>();
    for (let cursor: string | undefined; ;) {
      const page = await admin.get<AuditEventPage>(`/audit-events?action=team.create&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status, page.text).to.equal(200);
      page.body.items.filter((e) => e.outcome === 'SUCCESS').forEach((e) => audited.add(e.targetId));
      cursor = page.body.nextCursor;
      if (!cursor) break;
    }
    for (const [name, id] of acknowledged) expect(audited.has(id), `${name}'s team.create event`).to.equal(true);

    await controller.kill('SIGKILL');
    controller = await ControllerProcess.start(dataDir);
    const login = await controller.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    expect(login.status, login.text).to.equal(200);
    admin = controller.api.withCookie(sessionCookieFrom(login));
    const restarted = await visible(admin);
    for (const name of acknowledged.keys()) expect(restarted.has(name), `${name} (201) kept across SIGKILL`).to.equal(true);
    for (const name of refused) expect(restarted.has(name), `${name} (507) not stored`).to.equal(false);
    expect(restarted.has('kept')).to.equal(true);
    expect(restarted.has('renamed')).to.equal(false);
    expect((await controller.api.get<Readiness>('/readyz')).status).to.equal(200);
  });
});
