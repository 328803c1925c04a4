import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTemplatesDir } from '../../src/controller/adapters/software/template-catalog.js';
import type { Node, ServerDetail, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const MiB = 2 ** 20;

/**
 * Templates of simcraft that need a Java: `java-only` runs `{java}` as the real templates do,
 * needing 99 (no Node has it); `java-named` runs simcraft with the chosen Java in its environment
 * (`JAVA_USED`), needing 42, so a start shows which launcher `{java}` became.
 */
async function templatesDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
  const simcraft = JSON.parse(await readFile(join(defaultTemplatesDir(), 'simcraft.json'), 'utf8')) as { run: Record<string, unknown> };
  for (const file of ['simcraft.json', 'simproxy.json']) await writeFile(join(dir, file), await readFile(join(defaultTemplatesDir(), file)));
  await writeFile(join(dir, 'java-only.json'), JSON.stringify({ ...simcraft, id: 'java-only', name: 'Java only', java: { minimum: 99 }, run: { command: '{java}', args: ['-jar', 'server.jar'] } }));
  await writeFile(join(dir, 'java-named.json'), JSON.stringify({ ...simcraft, id: 'java-named', name: 'Java named', java: { minimum: 42 }, run: { ...simcraft.run, env: { JAVA_USED: '{java}' } } }));
  return dir;
}

/** A fake launcher printing a real-looking banner for `major` to stderr, as `java -version` does. */
async function fakeJava(path: string, major: number): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `#!/bin/sh\necho 'openjdk version "${major}.0.1" 2031-01-01' >&2\necho 'OpenJDK Runtime Environment (build ${major}.0.1+1)' >&2\n`);
  await chmod(path, 0o755);
  return realpath(path);
}

describe('Java runtimes: a real Agent reports its Javas and chooses one per start', function () {
  this.timeout(120_000);
  let f: Fleet;
  let javas: string;
  let java41: string;
  let java43: string;

  before(async () => {
    javas = await mkdtemp(join(tmpdir(), 'cairn-javas-'));
    // Majors no real JDK has, so the Javas of this machine (also found) never fit in their place.
    java41 = await fakeJava(join(javas, 'java41'), 41);
    java43 = await fakeJava(join(javas, 'jdk43', 'bin', 'java'), 43);
    f = await startFleet({ extraArgs: ['--templates-dir', await templatesDir()], agentArgs: ['--java', java41, '--java', join(javas, 'jdk43')] });
  });
  after(async () => {
    await f.dispose();
    await rm(javas, { recursive: true, force: true });
  });

  async function create(name: string, template: string): Promise<ServerDetail> {
    const res = await f.admin.post<ServerDetail>('/servers', {
      name, teamId: f.teamId, software: { template, version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: 128 * MiB }, restartPolicy: { maxRestarts: 3, windowSeconds: 60 },
    });
    expect(res.status, res.text).to.equal(201);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', `${name} READY`);
  }

  it('the Node shows status.runtimes: the --java launchers first (a JAVA_HOME directory taken as its bin/java)', async () => {
    const node = await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.runtimes?.length ? (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body : undefined, { what: 'status.runtimes' });
    const runtimes = node.status.runtimes!;
    expect(runtimes.slice(0, 2)).to.deep.equal([
      { name: 'java', version: '41.0.1', major: 41, path: java41 },
      { name: 'java', version: '43.0.1', major: 43, path: java43 },
    ]);
    expect(runtimes.every((r) => r.name === 'java' && r.major > 0)).to.equal(true);
    expect(new Set(runtimes.map((r) => r.path)).size).to.equal(runtimes.length);
  });

  it('a server needing a Java the Node lacks gets RUNTIME_MISSING and stays STOPPED, with no crash loop and no last crash', async () => {
    const server = await create('no-java', 'java-only');
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    const refused = await waitForServer(f.admin, server.id, (s) => s.status.conditions.some((c) => c.reason === 'RUNTIME_MISSING') && s.observedGeneration === s.generation, 'RUNTIME_MISSING');
    expect(refused.status.runtimeState).to.equal('STOPPED');
    expect(refused.status.pid).to.equal(undefined);
    expect(refused.status.lastCrash).to.equal(undefined);
    expect(refused.conditions.map((c) => c.reason)).to.include('RUNTIME_MISSING').and.not.include('CRASH_LOOP');
    const message = refused.conditions.find((c) => c.reason === 'RUNTIME_MISSING')!.message;
    expect(message).to.include('Java 99 or newer').and.include('41').and.include('43');
    // Asked again, it is refused again: still no start and nothing counted as a crash.
    expect((await f.admin.post(`/servers/${server.id}/restart`)).status).to.equal(202);
    const again = await waitForServer(f.admin, server.id, (s) => s.observedGeneration === s.generation && s.generation > refused.generation, 'the restart observed');
    expect(again.status.runtimeState).to.equal('STOPPED');
    expect(again.status.lastCrash).to.equal(undefined);
    expect(again.conditions.map((c) => c.reason)).to.include('RUNTIME_MISSING').and.not.include('CRASH_LOOP');
  });

  it('{java} is the lowest installed major at least the minimum (43 for 42)', async () => {
    const server = await create('named', 'java-named');
    expect((await f.admin.post(`/servers/${server.id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, server.id, (s) => s.status.runtimeState === 'RUNNING' && s.status.pid !== undefined, 'RUNNING with a pid', 60_000);
    const environ = (await readFile(`/proc/${running.status.pid}/environ`, 'utf8')).split('\0');
    expect(environ).to.include(`JAVA_USED=${java43}`);
    expect(running.conditions.map((c) => c.reason)).to.not.include('RUNTIME_MISSING');
  });
});

describe('Java runtimes: automatic placement prefers a Node with the Java a version needs', () => {
  let t: TestController;
  let admin: ApiClient;
  let teamId: string;
  const agents: FakeAgent[] = [];
  const java = (major: number) => ({ name: 'java', version: `${major}.0.1`, major, path: `/usr/lib/jvm/jdk-${major}/bin/java` });

  before(async () => {
    t = await startTestController({ extraArgs: ['--templates-dir', await templatesDir()] });
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
  });
  after(async () => {
    for (const agent of agents) agent.stop();
    await t.dispose();
  });

  async function node(name: string, memoryBytes: number, majors: number[]): Promise<string> {
    const agent = await FakeAgent.connect(admin, t.controller.grpcPort, name, { cpuMillis: 8000, memoryBytes }, { runtimes: majors.map(java) });
    agents.push(agent);
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: `${name} HEALTHY` });
    return agent.nodeId;
  }
  const place = async (name: string, template: string) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: { template, version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: GiB / 4 } });
    expect(res.status, res.text).to.equal(201);
    return res.body.nodeId;
  };

  it('a Node with Java 43 wins over a tighter fit with 41 only; a version needing 99 takes the best fit of all', async () => {
    const tight = await node('tight-41', GiB, [41]);
    const roomy = await node('roomy-43', 64 * GiB, [17, 43]);
    expect((await admin.get<Node>(`/nodes/${roomy}`)).body.status.runtimes?.map((r) => r.major)).to.deep.equal([17, 43]);
    // simcraft needs no Java: best fit alone decides.
    expect(await place('plain', 'simcraft')).to.equal(tight);
    expect(await place('needs-42', 'java-named')).to.equal(roomy);
    expect(await place('needs-99', 'java-only')).to.equal(tight);
  });
});
