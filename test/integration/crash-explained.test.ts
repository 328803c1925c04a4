import { expect } from 'chai';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsoleStreamEvent, ServerDetail } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { openSse } from '../support/sse.js';

const crashLine = 'Encountered an unexpected exception: simcraft-crash-after-ms elapsed (300 ms)';

/** Every file under `dir`, read whole: what the Controller has on disk, its store included. */
async function everythingUnder(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(await readFile(join(entry.parentPath, entry.name), 'utf8').catch(() => ''));
  }
  return parts.join('\n');
}

describe('crashes explained (real Agent, simcraft made to crash)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let looping: ServerDetail;
  const rootOf = (id: string) => join(f.agentDir, 'servers', id, 'root');
  const create = async (name: string, restartPolicy?: { maxRestarts: number; windowSeconds: number }) => {
    const res = await f.admin.post<ServerDetail>('/servers', {
      name, teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 }, ...(restartPolicy ? { restartPolicy } : {}),
    });
    expect(res.status, res.text).to.equal(201);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY');
  };
  const consoleOf = (id: string, tail: number) =>
    openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${id}/console?tail=${tail}`, { cookie: f.admin.auth.cookie! });

  before(async () => {
    f = await startFleet();
    looping = await create('looping', { maxRestarts: 1, windowSeconds: 300 });
    await writeFile(join(rootOf(looping.id), 'server.properties'), 'simcraft-crash-after-ms=300\n');
    expect((await f.admin.post(`/servers/${looping.id}/start`)).status).to.equal(202);
    looping = await waitForServer(f.admin, looping.id, (s) => s.conditions.some((c) => c.reason === 'CRASH_LOOP'), 'CRASH_LOOP', 60_000);
  });
  after(async () => f.dispose());

  it('CRASH_LOOP says how the last crash ended and what the game printed last', () => {
    const loop = looping.conditions.find((c) => c.reason === 'CRASH_LOOP')!;
    expect(loop.message).to.match(/^Crashed 2 times within 300 s; automatic restarts stopped until acknowledged\. The last one ended with exit code 1\. Last lines: /);
    expect(loop.message).to.include(crashLine);
    expect(looping.status.conditions.find((c) => c.reason === 'CRASH_LOOP')?.message).to.equal(loop.message);
  });

  it('the server detail has the last crash: when, the exit code and the last console lines', () => {
    const crash = looping.status.lastCrash!;
    expect(crash).to.include({ exitCode: 1 });
    expect(crash).to.not.have.property('signal');
    expect(Date.parse(crash.at)).to.be.at.most(Date.now());
    expect(crash.lastLines.length).to.be.within(2, 20);
    expect(crash.lastLines[crash.lastLines.length - 1]).to.include(crashLine);
    expect(crash.lastLines.some((line) => line.includes('Done ('))).to.equal(true);
  });

  it('the last crash counts the automatic restarts since the operator\'s start: two crashes, one restart between them', () => {
    expect(looping.status.lastCrash!.restarts).to.equal(1);
  });

  it('without servers.console the detail keeps how the crash ended but none of its lines, in lastCrash or in CRASH_LOOP\'s message', async () => {
    const role = await f.admin.post<{ id: string }>('/roles', { name: 'reader-only', permissions: ['servers.read'] });
    const { client, userId } = await createReadyUser(f.t, f.admin, 'reader');
    expect((await f.admin.put(`/teams/${f.teamId}/members/${userId}`, { roleIds: [role.body.id] })).status).to.equal(200);
    const seen = await client.get<ServerDetail>(`/servers/${looping.id}`);
    expect(seen.status, seen.text).to.equal(200);
    expect(seen.body.status.lastCrash).to.deep.include({ exitCode: 1, at: looping.status.lastCrash!.at, lastLines: [] });
    expect(seen.text).to.not.include(crashLine);
    expect(seen.body.conditions.find((c) => c.reason === 'CRASH_LOOP')?.message).to.match(/ended with exit code 1\.$/);
  });

  it('the Controller never writes the console lines of a crash to its store', async () => {
    const stored = await f.t.controller.repos.servers.findById(looping.id);
    expect(JSON.stringify(stored)).to.include('exit code 1').and.not.include('unexpected exception');
    expect(await everythingUnder(f.t.dataDir)).to.not.include('unexpected exception');
  });

  it('the Agent logs each crash at warn level', () => {
    const warnings = f.agent.stderr.split('\n').filter((line) => line.includes('"level":40') && line.includes(looping.id) && line.includes('the game crashed (exit code 1)'));
    expect(warnings).to.have.length(2);
  });

  it('the console of the dead game replays its last lines, dated when printed, then ends with the crash', async () => {
    const stream = await consoleOf(looping.id, 5);
    expect(stream.status).to.equal(200);
    await stream.ended;
    const lines = stream.events.flatMap((e) => (e.event === 'line' ? [e.data] : []));
    expect(lines).to.have.length(5);
    expect(lines.every((l) => l.replay)).to.equal(true);
    expect(lines[4].text).to.include(crashLine);
    for (const line of lines) expect(Date.parse(line.at), 'printed before the crash was reported').to.be.at.most(Date.parse(looping.status.lastCrash!.at));
    expect(stream.events[stream.events.length - 1]).to.deep.equal({ event: 'end', data: { reason: 'crashed', exitCode: 1 } });
  });

  it('stopped while in CRASH_LOOP: STOPPED and CONVERGED, the condition kept until acknowledged', async () => {
    expect((await f.admin.post(`/servers/${looping.id}/stop`)).status).to.equal(202);
    const stopped = await waitForServer(f.admin, looping.id, (s) => s.observedGeneration === s.generation && s.convergence === 'CONVERGED', 'CONVERGED after the stop');
    expect(stopped.status.runtimeState).to.equal('STOPPED');
    expect(stopped.conditions.map((c) => c.reason)).to.deep.equal(['CRASH_LOOP']);
    expect(stopped.status.lastCrash?.restarts, 'a stop keeps the count of the crashes it ended').to.equal(1);
  });

  describe('a server that runs', () => {
    let healthy: ServerDetail;
    before(async () => {
      healthy = await create('healthy');
      expect((await f.admin.post(`/servers/${healthy.id}/start`)).status).to.equal(202);
      healthy = await waitForServer(f.admin, healthy.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING');
    });

    it('replayed console lines carry the time they were printed, not the time of the replay', async () => {
      const seenRunning = Date.now();
      const stream = await consoleOf(healthy.id, 20);
      await stream.next((e) => e.event === 'line' && e.data.text.includes('Done ('));
      stream.close();
      const done = stream.events.flatMap((e) => (e.event === 'line' && e.data.text.includes('Done (') ? [e.data] : []))[0];
      expect(done.replay).to.equal(true);
      expect(Date.parse(done.at)).to.be.below(seenRunning);
    });

    it('start on a server already RUNNING is taken (202) without a new generation', async () => {
      const res = await f.admin.post<ServerDetail>(`/servers/${healthy.id}/start`);
      expect(res.status, res.text).to.equal(202);
      expect(res.body.generation).to.equal(healthy.generation);
      expect(res.body.status.lastCrash).to.equal(undefined);
    });
  });
});
