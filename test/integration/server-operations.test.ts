import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import yazl from 'yazl';
import type { AuditEventPage, ConsoleStreamEvent, FileList, Problem, PropertiesChanged, PropertiesView } from '../support/api-types.js';
import { waitForServer, type Fleet } from '../support/fleet.js';
import { createReadyUser } from '../support/controller.js';
import { expectProblem } from '../support/problems.js';
import { running, serverOpsRig } from '../support/server-ops-rig.js';
import { openSse, type SseStream } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

const MiB = 1024 * 1024;
/** The data of a console `line` event (the stream's other event is `end`). */
function lineData(e: ConsoleStreamEvent) {
  if (e.event !== 'line') throw new Error(`expected a line event, got ${e.event}`);
  return e.data;
}

describe('operating a server: console, files, server.properties (real Agent and simcraft) — operations and their audit', function () {
  this.timeout(60_000);
  const rig = serverOpsRig();
  const { rootOf, q, watch, command, put } = rig;
  let f: Fleet;
  let id: string;
  // The tests read the Fleet and the server the rig's before() made, under the names they always had.
  before(() => ({ f, id } = rig));
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  describe('console', () => {
    it('relays a command\'s output as a line event', async () => {
      const stream = await watch(0);
      expect(stream.status).to.equal(200);
      expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
      const res = await command('say hi');
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ sent: true });
      const line = lineData(await stream.next((e) => e.event === 'line' && e.data.text.endsWith('[Server] hi')));
      expect(line).to.include({ truncated: false, replay: false });
      expect(Date.parse(line.at)).to.be.closeTo(Date.now(), 10_000);
      stream.close();
    });

    it('refuses commands that are not one line without a leading slash', async () => {
      for (const bad of ['', '   ', '/say hi', 'say a\nstop', 'say a\rb', 'say \u0000', `say ${'x'.repeat(65_533)}`, `say ${'é'.repeat(32_767)}`]) {
        expectProblem(await command(bad), 400, 'invalid_request', 'command');
      }
      // 64 KiB of UTF-8 is the bound, not a count of characters: long generated commands (tellraw) pass.
      expect((await command(`say ${'x'.repeat(65_532)}`)).status).to.equal(200);
      expect((await command(`say ${'é'.repeat(32_766)}`)).status).to.equal(200);
      expectProblem(await f.admin.post(`/servers/${id}/console/commands`, {}), 400, 'invalid_request');
    });

    it('replays the last lines in order, then goes live', async () => {
      const live = await watch(0);
      for (const word of ['one', 'two', 'three']) expect((await command(`say ${word}`)).status).to.equal(200);
      await live.next((e) => e.event === 'line' && e.data.text.endsWith('[Server] three'));
      const replayed = await watch(3);
      await waitFor(() => replayed.events.length >= 3, { what: 'the replay' });
      expect(replayed.events.slice(0, 3).map(lineData).map((l) => [l.replay, l.text.replace(/^.*\[Server\] /, '')])).to.deep.equal([
        [true, 'one'], [true, 'two'], [true, 'three'],
      ]);
      await command('say four');
      await replayed.next((e) => e.event === 'line' && e.data.text.endsWith('[Server] four') && !e.data.replay);
      // Each line once: the replay and the live lines do not overlap.
      expect(replayed.events.filter((e) => e.event === 'line' && e.data.text.endsWith('[Server] three'))).to.have.length(1);
      live.close();
      replayed.close();
    });

    it('ends streams when the server restarts; a line longer than 16 KiB arrives cut', async () => {
      // A plugin whose declared name is 20,000 characters makes simcraft print a line far over 16 KiB at start.
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from(`name: ${'x'.repeat(20_000)}\nversion: 1.0\nmain: a.B\n`), 'plugin.yml');
      zip.end();
      const chunks: Buffer[] = [];
      for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
      expect((await f.admin.post(`/servers/${id}/files/directories${q('plugins')}`)).status).to.be.oneOf([201, 409]);
      expect((await put('plugins/long-name.jar', Buffer.concat(chunks))).status).to.equal(204);
      const before = await watch(0);
      expect((await f.admin.post(`/servers/${id}/restart`)).status).to.equal(202);
      expect((await before.next((e) => e.event === 'end', 20_000)).data).to.include({ reason: 'stopped' });
      await before.ended;
      await waitForServer(f.admin, id, (s) => running(s) && s.status.startedAt !== undefined, 'RUNNING again');
      const stream = await watch(1000);
      const line = lineData(await stream.next((e) => e.event === 'line' && e.data.text.includes('[xxxx')));
      expect(line).to.include({ truncated: true, replay: true });
      expect(Buffer.byteLength(line.text)).to.be.at.most(16 * 1024).and.above(15 * 1024);
      expect((await f.admin.delete(`/servers/${id}/files${q('plugins/long-name.jar')}`)).status).to.equal(204);
    });

    it('refuses a tail out of bounds', async () => {
      for (const tail of ['-1', '1001', 'many']) {
        expectProblem(await f.admin.get(`/servers/${id}/console?tail=${tail}`), 400, 'invalid_request', 'tail');
      }
    });

    it('allows two streams per user and four per server (429 with Retry-After past either), for the global administrator too; a closed stream frees its slot', async () => {
      await waitFor(async () => (f.t.controller.services.consoleHub.watching(id) === 0), { what: 'earlier streams to be gone' });
      const role = await f.admin.post<{ id: string }>('/roles', { name: 'console-watcher', permissions: ['servers.read', 'servers.console'] });
      expect(role.status, role.text).to.equal(201);
      const users = await Promise.all(['watcher-one', 'watcher-two'].map(async (name) => {
        const { client, userId } = await createReadyUser(f.t, f.admin, name);
        expect((await f.admin.put(`/teams/${f.teamId}/members/${userId}`, { roleIds: [role.body.id] })).status).to.equal(200);
        return client;
      }));
      const mine: SseStream<ConsoleStreamEvent>[] = [];
      const watchAs = async (cookie: string) => {
        const stream = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${id}/console?tail=0`, { cookie });
        mine.push(stream);
        return stream;
      };
      const refused = (s: SseStream<ConsoleStreamEvent>) => {
        expect(s.status).to.equal(429);
        expect(s.problem?.code).to.equal('too_many_attempts');
        expect(Number(s.headers.get('retry-after'))).to.be.greaterThan(0);
      };
      try {
        const [one, two] = users.map((u) => u.auth.cookie!);
        const ones = [await watchAs(one), await watchAs(one)];
        ones.forEach((s) => expect(s.status).to.equal(200));
        // One user's third stream of the server: refused, though the server has room.
        refused(await watchAs(one));
        const twos = [await watchAs(two), await watchAs(two)];
        twos.forEach((s) => expect(s.status).to.equal(200));
        // Four on the server from two users: the spec's limit holds for the global administrator as well.
        refused(await watch(0));
        refused(await watchAs(two));
        ones[0].close();
        const again = await waitFor(async () => {
          const s = await watchAs(one);
          return s.status === 200 ? s : undefined;
        }, { what: 'a freed slot', timeoutMs: 3000 });
        // Every watcher still gets the lines.
        await command('say shared');
        await Promise.all([ones[1], ...twos, again].map((s) => s.next((e) => e.event === 'line' && e.data.text.endsWith('[Server] shared'))));
      } finally {
        mine.forEach((s) => s.close());
      }
      await waitFor(() => f.t.controller.services.consoleHub.watching(id) === 0, { what: 'every slot freed' });
    });
  });

  describe('files', () => {
    it('creates a directory, writes, lists, reads and deletes files', async () => {
      expect((await f.admin.post(`/servers/${id}/files/directories${q('world-extra')}`)).status).to.equal(201);
      expectProblem(await f.admin.post(`/servers/${id}/files/directories${q('world-extra')}`), 409, 'conflict');
      expectProblem(await f.admin.post(`/servers/${id}/files/directories${q('missing/child')}`), 404, 'not_found');
      expect((await put('world-extra/notes.txt', 'hello files')).status).to.equal(204);
      expectProblem(await put('no-such-dir/notes.txt', 'x'), 404, 'not_found');
      const list = await f.admin.get<FileList>(`/servers/${id}/files${q('world-extra')}`);
      expect(list.status, list.text).to.equal(200);
      expect(list.body.items).to.have.length(1);
      expect(list.body.items[0]).to.include({ name: 'notes.txt', path: 'world-extra/notes.txt', type: 'FILE', sizeBytes: 11 });
      const root = await f.admin.get<FileList>(`/servers/${id}/files${q('.')}`);
      expect(root.body.items.map((i) => i.name)).to.include.members(['.cairn', 'server.properties', 'world-extra']);
      expect(root.body.items.find((i) => i.name === 'world-extra')?.type).to.equal('DIRECTORY');
      const read = await f.admin.get(`/servers/${id}/files/content${q('world-extra/notes.txt')}`);
      expect(read.status).to.equal(200);
      expect(read.headers.get('content-type')).to.equal('application/octet-stream');
      expect(read.text).to.equal('hello files');
      expectProblem(await f.admin.get(`/servers/${id}/files/content${q('world-extra')}`), 400, 'invalid_request');
      expectProblem(await f.admin.get(`/servers/${id}/files/content${q('world-extra/none')}`), 404, 'not_found');
      expect((await f.admin.delete(`/servers/${id}/files${q('world-extra')}`)).status).to.equal(204);
      expectProblem(await f.admin.get(`/servers/${id}/files${q('world-extra')}`), 404, 'not_found');
    });

    it('round-trips a 64 MiB file with the same checksum', async () => {
      const data = randomBytes(64 * MiB);
      const res = await put('big.bin', data);
      expect(res.status, res.text).to.equal(204);
      expect((await stat(join(rootOf(), 'big.bin'))).size).to.equal(64 * MiB);
      const got = await fetch(`${f.t.baseUrl}/api/v1/servers/${id}/files/content${q('big.bin')}`, { headers: { cookie: f.admin.auth.cookie! } });
      expect(got.status).to.equal(200);
      expect(got.headers.get('content-length')).to.equal(String(64 * MiB));
      expect(sha256(Buffer.from(await got.arrayBuffer()))).to.equal(sha256(data));
    });

    it('refuses 64 MiB + 1 byte with 413, declared or streamed, and leaves nothing behind', async () => {
      const tooBig = Buffer.alloc(64 * MiB + 1, 7);
      expectProblem(await put('too-big.bin', tooBig), 413, 'too_large');
      // Without a Content-Length the Controller counts the bytes as they arrive.
      const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${f.t.baseUrl}/api/v1/servers/${id}/files/content${q('too-big.bin')}`, {
          method: 'PUT', headers: { cookie: f.admin.auth.cookie!, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
        }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        let sent = 0;
        const pump = () => {
          while (sent < tooBig.length) {
            const piece = tooBig.subarray(sent, sent + MiB);
            sent += piece.length;
            if (!req.write(piece)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      expect(streamed.status).to.equal(413);
      expect((JSON.parse(streamed.body) as Problem).code).to.equal('too_large');
      await waitFor(async () => !(await readdir(rootOf())).some((n) => n.startsWith('.cairn-upload-')), { what: 'the partial upload to be removed' });
      expect((await readdir(rootOf())).filter((n) => n.startsWith('too-big'))).to.deep.equal([]);
      await rm(join(rootOf(), 'big.bin'));
    });

  });

  describe('server.properties', () => {
    it('keeps comments, blank lines, order and escapes byte for byte; changes only what was asked', async () => {
      const port = (await readFile(join(rootOf(), 'server.properties'), 'utf8')).match(/^server-port=(\d+)$/m)![1];
      const original = [
        '#Minecraft server properties',
        '# a comment with = and : inside',
        '',
        `server-port=${port}`,
        'motd=A \\u00e9t\\u00e9 server\\: with \\\\ backslash',
        '   spaced\\ key   :   value with trailing ',
        'multi=first \\',
        '    second',
        '! bang comment',
        'difficulty=easy',
        'keep=me',
        '',
      ].join('\r\n');
      expect((await put('server.properties', original)).status).to.equal(204);
      const got = await f.admin.get<PropertiesView>(`/servers/${id}/properties`);
      expect(got.status, got.text).to.equal(200);
      expect(got.body.managed).to.have.keys(['server-port']);
      expect(got.body.properties).to.deep.include({
        motd: 'A été server: with \\ backslash', 'spaced key': 'value with trailing ', multi: 'first second', difficulty: 'easy', keep: 'me',
      });
      const res = await f.admin.patch<PropertiesChanged>(`/servers/${id}/properties`, { difficulty: 'hard', 'new key': 'tab\there #1 ünï', multi: null });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.appliesAtNextStart).to.equal(true);
      expect(res.body.properties).to.include({ difficulty: 'hard', 'new key': 'tab\there #1 ünï', keep: 'me' });
      expect(res.body.properties).to.not.have.property('multi');
      const after = await readFile(join(rootOf(), 'server.properties'), 'latin1');
      expect(after).to.equal([
        '#Minecraft server properties',
        '# a comment with = and : inside',
        '',
        `server-port=${port}`,
        'motd=A \\u00e9t\\u00e9 server\\: with \\\\ backslash',
        '   spaced\\ key   :   value with trailing ',
        '! bang comment',
        'difficulty=hard',
        'keep=me',
        'new\\ key=tab\\there #1 \\u00fcn\\u00ef',
        '',
      ].join('\r\n'));
      expect((await f.admin.get<PropertiesView>(`/servers/${id}/properties`)).body.properties).to.deep.equal(res.body.properties);
    });

    it('refuses managed keys and bad bodies; creates the file when absent', async () => {
      for (const key of ['server-port', 'server-ip', 'enable-rcon', 'rcon.password', 'enable-query', 'query.port']) {
        expectProblem(await f.admin.patch(`/servers/${id}/properties`, { [key]: '1' }), 400, 'managed_property', key);
      }
      expectProblem(await f.admin.patch(`/servers/${id}/properties`, {}), 400, 'invalid_request');
      expectProblem(await f.admin.patch(`/servers/${id}/properties`, { motd: 'x'.repeat(1025) }), 400, 'invalid_request');
      expectProblem(await f.admin.patch(`/servers/${id}/properties`, Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v']))), 400, 'invalid_request');
      expectProblem(await f.admin.patch(`/servers/${id}/properties`, { motd: 7 }), 400, 'invalid_request');
      const saved = await readFile(join(rootOf(), 'server.properties'));
      await rm(join(rootOf(), 'server.properties'));
      const res = await f.admin.patch(`/servers/${id}/properties`, { motd: 'fresh' });
      expect(res.status, res.text).to.equal(200);
      expect(await readFile(join(rootOf(), 'server.properties'), 'utf8')).to.equal('motd=fresh\n');
      await writeFile(join(rootOf(), 'server.properties'), saved);
    });
  });

  describe('audit and the end of the console', () => {
    it('records each action with what was acted on, never content', async () => {
      const find = async (action: string) => (await f.admin.get<AuditEventPage>(`/audit-events?action=${action}&targetId=${id}&limit=200`)).body.items;
      expect((await find('server.command')).map((e) => e.details.command)).to.include('say hi');
      const writes = await find('server.file.write');
      expect(writes.find((e) => e.details.path === 'big.bin' && e.outcome === 'SUCCESS')?.details.sizeBytes).to.equal(64 * MiB);
      expect(writes.find((e) => e.details.path === 'world-extra/notes.txt')?.details).to.not.have.property('content');
      expect(writes.some((e) => e.details.path === 'too-big.bin' && e.details.error === 'too_large')).to.equal(true);
      expect((await find('server.file.delete')).map((e) => e.details.path)).to.include('world-extra');
      expect((await find('server.directory.create')).map((e) => e.details.path)).to.include('world-extra');
      const props = await find('server.properties.update');
      expect(props.map((e) => e.details.keys)).to.deep.include(['difficulty', 'new key', 'multi']);
      expect(JSON.stringify(props)).to.not.include('tab\there');
    });

    it('sends end when the server stops and closes the stream; then refuses commands, and a new stream replays the end of the run', async () => {
      const stream = await watch(5);
      expect((await f.admin.post(`/servers/${id}/stop`)).status).to.equal(202);
      const end = await stream.next((e) => e.event === 'end', 20_000);
      expect(end.data).to.include({ reason: 'stopped' });
      await stream.ended;
      await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED');
      expectProblem(await command('say late'), 409, 'server_not_running');
      const replay = await watch(3);
      expect(replay.status).to.equal(200);
      await replay.ended;
      expect(replay.events.map((e) => e.event)).to.deep.equal(['line', 'line', 'line', 'replayed', 'end']);
      expect(replay.events[4].data).to.include({ reason: 'stopped' });
    });

    it('answers node_unavailable for every operation once the Agent is gone', async () => {
      await f.agent.kill();
      await waitFor(async () => (await f.admin.get(`/servers/${id}/properties`)).status === 503, { what: 'the Node to be seen as gone' });
      expectProblem(await command('say hi'), 503, 'node_unavailable');
      expectProblem(await f.admin.get(`/servers/${id}/console`), 503, 'node_unavailable');
      expectProblem(await f.admin.get(`/servers/${id}/files${q('.')}`), 503, 'node_unavailable');
      expectProblem(await f.admin.get(`/servers/${id}/files/content${q('server.properties')}`), 503, 'node_unavailable');
      expectProblem(await put('x.txt', 'x'), 503, 'node_unavailable');
      expectProblem(await f.admin.delete(`/servers/${id}/files${q('x.txt')}`), 503, 'node_unavailable');
      expectProblem(await f.admin.post(`/servers/${id}/files/directories${q('d')}`), 503, 'node_unavailable');
      expectProblem(await f.admin.get(`/servers/${id}/properties`), 503, 'node_unavailable');
      expectProblem(await f.admin.patch(`/servers/${id}/properties`, { motd: 'x' }), 503, 'node_unavailable');
    });
  });
});
