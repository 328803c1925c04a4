import { expect } from 'chai';
import { request, type ClientRequest } from 'node:http';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB } from '../support/fleet.js';
import type { Node, Problem, ServerDetail, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

interface OpenUpload {
  req: ClientRequest;
  /** The answer's status and body, as soon as the Controller answers (the body may still be unsent). */
  answer: Promise<{ status: number; problem: Problem; headers: Record<string, string | string[] | undefined> }>;
  /** Resolves when the connection is gone. */
  closed: Promise<void>;
}

/** A raw upload whose body the test feeds by hand, so it can go quiet or stop short. */
function openUpload(baseUrl: string, path: string, declaredBytes: number, headers: Record<string, string> = {}): OpenUpload {
  const req = request(`${baseUrl}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(declaredBytes), ...headers },
  });
  req.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => {
    req.once('socket', (socket) => socket.once('close', () => resolve()));
  });
  const answer = new Promise<{ status: number; problem: Problem; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, problem: JSON.parse(text || '{}') as Problem, headers: res.headers }));
      res.on('error', reject);
    });
  });
  req.flushHeaders();
  return { req, answer, closed };
}

type Answer = Awaited<OpenUpload['answer']>;

/**
 * Opens two trickling uploads (a write every 200 ms) and probes with a small one until a probe is
 * refused with 429: both hold their slots then. A request is admitted once its session is read, and
 * on FerretDB a later one can be read first: a probe may take a slot before a held upload does
 * (answered 400 as no jar), and a held upload refused meanwhile is opened again.
 */
async function holdTwo(open: () => OpenUpload, probe: () => OpenUpload): Promise<{ held: OpenUpload[]; refused: Answer; stopTrickling: () => void }> {
  const held: { upload: OpenUpload; timer: NodeJS.Timeout; answered: boolean }[] = [];
  const stopTrickling = () => held.forEach((h) => clearInterval(h.timer));
  const openOne = () => {
    const upload = open();
    upload.req.write(Buffer.alloc(1024));
    const one = { upload, timer: setInterval(() => upload.req.write(Buffer.alloc(1024)), 200), answered: false };
    void upload.answer.then(() => (one.answered = true), () => (one.answered = true));
    held.push(one);
  };
  openOne();
  openOne();
  try {
    const refused = await waitFor(async () => {
      for (const h of held.filter((one) => one.answered)) {
        clearInterval(h.timer);
        held.splice(held.indexOf(h), 1);
        openOne();
      }
      const answer = await probe().answer;
      return answer.status === 429 ? answer : undefined;
    }, { what: 'a third upload refused while two trickle', timeoutMs: 20_000 });
    return { held: held.map((h) => h.upload), refused, stopTrickling };
  } catch (err) {
    stopTrickling();
    throw err;
  }
}

const smallUpload = (baseUrl: string, path: string, cookie: string) => () => {
  const upload = openUpload(baseUrl, path, 1024, { cookie });
  upload.req.end(Buffer.alloc(1024));
  return upload;
};

describe('upload limits: silent bodies, refusals that do not read, slots', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let uploadPath: string;
  const cookie = () => admin.auth.cookie ?? '';

  before(async () => {
    t = await startTestController({ uploads: { slots: 2, perUser: 3, waitMs: 700, silenceMs: 1_000 } });
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'uploads');
    const team = (await admin.post<Team>('/teams', { name: 'uploaders' })).body;
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: 'the Node to accept placements' });
    const server = await admin.post<ServerDetail>('/servers', {
      name: 'jarred', teamId: team.id, software: { template: 'simcraft', version: '1.21.4' },
      resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId,
    });
    expect(server.status, server.text).to.equal(201);
    uploadPath = `/servers/${server.body.id}/plugins/upload?fileName=slow.jar`;
  });
  after(async () => {
    agent.stop();
    await t.dispose();
  });

  it('answers 408 request_timeout when a body goes quiet, and closes the connection', async () => {
    const started = Date.now();
    const upload = openUpload(t.baseUrl, uploadPath, 1024 * 1024, { cookie: cookie() });
    upload.req.write(Buffer.alloc(16 * 1024));
    const answer = await upload.answer;
    expect(answer.status).to.equal(408);
    expect(answer.problem.code).to.equal('request_timeout');
    expect(answer.headers.connection).to.equal('close');
    await upload.closed;
    expect(Date.now() - started).to.be.within(900, 10_000);
  });

  it('refuses an unauthenticated upload at once (401) and closes instead of reading the body', async () => {
    const upload = openUpload(t.baseUrl, uploadPath, 64 * 1024 * 1024);
    upload.req.write(Buffer.alloc(64 * 1024));
    const answer = await upload.answer;
    expect(answer.status).to.equal(401);
    expect(answer.problem.code).to.equal('unauthenticated');
    expect(answer.headers.connection).to.equal('close');
    await upload.closed;
  });

  it('stops the silence clock of a body refused before it was read (no error after the deadline)', async () => {
    const upload = openUpload(t.baseUrl, '/servers/00000000-0000-4000-8000-000000000000/plugins/upload', 1024 * 1024, { cookie: cookie() });
    upload.req.write(Buffer.alloc(1024));
    expect((await upload.answer).status).to.equal(404);
    await upload.closed;
    // Past the 1 s silence deadline: an unread body whose clock still ran would now fail, uncaught.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await t.api.get('/me')).status).to.equal(401);
  });

  it('lets two bodies stream at once; a third waits, then gets 429 with Retry-After', async () => {
    // A trickle keeps each one alive (never silent for the 1 s deadline) and in its slot.
    const { held: feeding, refused, stopTrickling } = await holdTwo(() => openUpload(t.baseUrl, uploadPath, 1024 * 1024, { cookie: cookie() }), smallUpload(t.baseUrl, uploadPath, cookie()));
    stopTrickling();
    expect(refused.problem.code).to.equal('too_many_attempts');
    expect(refused.headers['retry-after']).to.equal('5');
    // Quiet now: both end in 408 and give their slots back, so the next upload is read (and refused as no jar).
    for (const upload of feeding) expect((await upload.answer).status).to.equal(408);
    const next = await admin.post(uploadPath, undefined, { rawBody: Buffer.from('not a jar') });
    expect(next.status, next.text).to.equal(400);
  });
});

describe('upload limits: one user holds at most two of the shared slots', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let other: ApiClient;
  let agent: FakeAgent;
  const open: OpenUpload[] = [];
  const timers: NodeJS.Timeout[] = [];

  /** A server of a new team on the fake Agent; its plugin upload path. */
  async function serverOf(teamName: string): Promise<{ teamId: string; path: string }> {
    const team = (await admin.post<Team>('/teams', { name: teamName })).body;
    const server = await admin.post<ServerDetail>('/servers', {
      name: `${teamName}-server`, teamId: team.id, software: { template: 'simcraft', version: '1.21.4' },
      resources: { cpuMillis: 100, memoryBytes: GiB / 16 }, nodeId: agent.nodeId,
    });
    expect(server.status, server.text).to.equal(201);
    return { teamId: team.id, path: `/servers/${server.body.id}/plugins/upload?fileName=slow.jar` };
  }

  before(async () => {
    // The default 8 slots and 2 per user; a short wait, so a starved upload shows as 429 rather than a test timeout.
    t = await startTestController({ uploads: { waitMs: 5_000, silenceMs: 3_000 } });
    ({ admin } = await setupAdmin(t));
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'uploads');
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: 'the Node to accept placements' });
  });
  afterEach(() => {
    for (const timer of timers.splice(0)) clearInterval(timer);
    for (const upload of open.splice(0)) upload.req.destroy();
  });
  after(async () => {
    agent.stop();
    await t.dispose();
  });

  it('refuses a user\'s third upload in flight with 429 and Retry-After; another team\'s upload goes through while they trickle', async () => {
    const mine = await serverOf('tricklers');
    const theirs = await serverOf('others');
    const role = (await admin.post<{ id: string }>('/roles', { name: 'uploader', permissions: ['servers.read', 'plugins.install'] })).body;
    const { client, userId } = await createReadyUser(t, admin, 'other-team-user');
    other = client;
    expect((await admin.put(`/teams/${theirs.teamId}/members/${userId}`, { roleIds: [role.id] })).status).to.equal(200);

    // Eight trickled uploads of one user: before, they took all eight slots and the other team waited.
    // Any two of them take the user's slots: which, is the order their sessions were read in (on FerretDB not the order sent).
    const answered: Awaited<OpenUpload['answer']>[] = [];
    for (let i = 0; i < 8; i += 1) {
      const upload = openUpload(t.baseUrl, mine.path, 1024 * 1024, { cookie: admin.auth.cookie ?? '' });
      upload.req.write(Buffer.alloc(1024));
      timers.push(setInterval(() => upload.req.write(Buffer.alloc(1024)), 200));
      void upload.answer.then((a) => answered.push(a), () => undefined);
      open.push(upload);
    }
    await waitFor(() => answered.length >= 6 || undefined, { what: 'six of the eight uploads answered', timeoutMs: 15_000 });
    const refused = [...answered];
    for (const answer of refused) {
      expect(answer.status).to.equal(429);
      expect(answer.problem.code).to.equal('too_many_attempts');
      expect(answer.headers['retry-after']).to.equal('5');
    }

    const started = Date.now();
    const theirsUpload = await other.post<Problem>(theirs.path, undefined, { rawBody: Buffer.from('hello') });
    // Read at once (and refused as no jar), not queued behind the trickles.
    expect(theirsUpload.status, theirsUpload.text).to.equal(400);
    expect(Date.now() - started).to.be.below(2_000);
    // The two holding the slots were still trickling all along: neither had an answer yet.
    expect(answered.map((a) => a.status)).to.deep.equal(Array<number>(6).fill(429));
  });

  it('gives a user\'s slots back when their uploads end, also when the client aborts', async () => {
    const mine = await serverOf('aborters');
    // A user of its own: the slots of the uploads the test before destroyed may not all be given back yet.
    const role = (await admin.post<{ id: string }>('/roles', { name: 'aborting-uploader', permissions: ['servers.read', 'plugins.install'] })).body;
    const aborter = await createReadyUser(t, admin, 'aborter');
    expect((await admin.put(`/teams/${mine.teamId}/members/${aborter.userId}`, { roleIds: [role.id] })).status).to.equal(200);
    const cookie = aborter.client.auth.cookie ?? '';
    const { held, refused, stopTrickling } = await holdTwo(() => openUpload(t.baseUrl, mine.path, 1024 * 1024, { cookie }), smallUpload(t.baseUrl, mine.path, cookie));
    stopTrickling();
    open.push(...held);
    expect(refused.problem.code).to.equal('too_many_attempts');
    // The two clients go away mid-body: their slots come free.
    for (const upload of open.splice(0)) upload.req.destroy();
    const next = await waitFor(async () => {
      const r = await aborter.client.post(mine.path, undefined, { rawBody: Buffer.from('not a jar') });
      return r.status === 429 ? undefined : r;
    }, { what: 'the user\'s slots to come free', timeoutMs: 5_000 });
    expect(next.status, next.text).to.equal(400);
  });
});
