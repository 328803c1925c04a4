import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { placeUpload } from '../../src/agent/files/upload-place.js';
import { UploadSessions, uploadsDirOf } from '../../src/agent/files/upload-sessions.js';
import { serverRoot } from '../../src/agent/reconciler/server-paths.js';
import { uploadLifetimeMs } from '../../src/shared/upload-lifetime.js';
import { failureOf } from '../support/agent-failure.js';
import { tempDirPerTest } from '../support/temp-dir.js';

const serverId = '0190a5e0-0000-7000-8000-000000000001';
const hour = 60 * 60 * 1000;

describe('agent: resumable upload sessions', () => {
  const dir = tempDirPerTest('cairn-upload-sessions-');
  const root = () => serverRoot(dir(), serverId);
  const place = (part: string, record: { path: string; size: number }) => placeUpload({ root: root(), path: record.path, part, size: record.size }).then(() => undefined);

  beforeEach(async () => {
    await mkdir(root(), { recursive: true });
  });

  it('appends at the offset only, keeps the data outside the root, and puts the file in place when whole', async () => {
    const sessions = new UploadSessions(dir());
    const id = randomUUID();
    await sessions.begin(serverId, id, 'world.bin', 6);
    expect((await sessions.append(serverId, id, 0, Buffer.from('abc'))).offset).to.equal(3);
    expect((await failureOf(sessions.append(serverId, id, 0, Buffer.from('abc')))).code).to.equal('UPLOAD_OFFSET_MISMATCH');
    expect((await failureOf(sessions.append(serverId, id, 3, Buffer.from('defg')))).code).to.equal('TOO_LARGE');
    expect((await failureOf(sessions.complete(serverId, id, place))).code).to.equal('UPLOAD_OFFSET_MISMATCH');
    expect(await readdir(root())).to.deep.equal([]);
    // A new instance (an Agent restarted) continues where the disk says.
    const again = new UploadSessions(dir());
    expect((await again.status(serverId, id)).offset).to.equal(3);
    await again.append(serverId, id, 3, Buffer.from('def'));
    const done = await again.complete(serverId, id, place);
    expect(done).to.include({ completed: true, offset: 6 });
    expect(await readFile(join(root(), 'world.bin'), 'utf8')).to.equal('abcdef');
    expect(await readdir(uploadsDirOf(dir(), serverId))).to.deep.equal([`${id}.json`]);
    expect((await again.complete(serverId, id, place)).completed, 'completing twice answers again').to.equal(true);
  });

  it('cancel removes the partial data; an id not shaped as one is refused', async () => {
    const sessions = new UploadSessions(dir());
    const id = randomUUID();
    await sessions.begin(serverId, id, 'a.bin', 10);
    await sessions.append(serverId, id, 0, Buffer.from('12345'));
    await sessions.cancel(serverId, id);
    expect(await readdir(uploadsDirOf(dir(), serverId))).to.deep.equal([]);
    expect((await failureOf(sessions.status(serverId, id))).code).to.equal('NOT_FOUND');
    expect((await failureOf(sessions.status(serverId, '../../etc'))).code).to.equal('INVALID_REQUEST');
  });

  it('sweeps uploads untouched for a day (by the injected clock), completed ones too, and leftovers without a record', async () => {
    let now = Date.now();
    const sessions = new UploadSessions(dir(), () => now);
    const fresh = randomUUID();
    const stale = randomUUID();
    const completed = randomUUID();
    for (const id of [fresh, stale, completed]) await sessions.begin(serverId, id, `${id}.bin`, 1);
    await sessions.append(serverId, completed, 0, Buffer.from('x'));
    await sessions.complete(serverId, completed, place);
    const uploads = uploadsDirOf(dir(), serverId);
    const orphan = join(uploads, `${randomUUID()}.part`);
    await writeFile(orphan, 'no record');
    // The stale upload's files were last written two hours before the others.
    const earlier = new Date(now - 2 * hour);
    for (const name of [`${stale}.part`, `${stale}.json`]) await utimes(join(uploads, name), earlier, earlier);

    now += uploadLifetimeMs - hour;
    expect(await sessions.sweep(), 'within the day only the stale one goes').to.equal(1);
    expect((await readdir(uploads)).sort()).to.deep.equal([`${fresh}.json`, `${fresh}.part`, `${completed}.json`, orphan.split('/').pop()!].sort());
    now += 2 * hour;
    expect(await sessions.sweep()).to.equal(3);
    expect(await readdir(uploads)).to.deep.equal([]);
    expect(await readFile(join(root(), `${completed}.bin`), 'utf8'), 'a completed file stays').to.equal('x');
  });
});
