import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { getMetricsFromIterator, type PromMetric } from 'prom2javascript';
import { cairnVersion } from '../../src/shared/version.js';
import type { ConsoleStreamEvent, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { startTestController } from '../support/controller.js';
import { openSse } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

/** The names contract.md ("Metrics") keeps stable, with their type and labels. */
const contract: Record<string, { type: string; labels: string[] }> = {
  cairn_build_info: { type: 'gauge', labels: ['version'] },
  cairn_servers: { type: 'gauge', labels: ['convergence', 'phase', 'runtime_state'] },
  cairn_nodes: { type: 'gauge', labels: ['admin_state', 'connection_state'] },
  cairn_agents_connected: { type: 'gauge', labels: [] },
  cairn_http_requests_total: { type: 'counter', labels: ['method', 'route', 'status'] },
  cairn_http_request_duration_seconds: { type: 'histogram', labels: ['method', 'route', 'status'] },
  cairn_reconcile_duration_seconds: { type: 'histogram', labels: [] },
  cairn_workflows_total: { type: 'counter', labels: ['kind', 'result'] },
  cairn_backups_total: { type: 'counter', labels: ['result', 'trigger'] },
  cairn_console_streams: { type: 'gauge', labels: [] },
  cairn_auth_failures_total: { type: 'counter', labels: ['reason'] },
};

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

type Sample = PromMetric['data'][number];

/** A scrape of /metrics, parsed by a Prometheus text-format parser. */
class Scrape {
  private constructor(readonly text: string, readonly families: Map<string, PromMetric>) {}

  static async parse(text: string): Promise<Scrape> {
    return new Scrape(text, new Map(Object.entries(await getMetricsFromIterator(text.split('\n')[Symbol.iterator]()))));
  }

  family(name: string): PromMetric {
    const family = this.families.get(name);
    if (!family) throw new Error(`${name} is not in the scrape`);
    return family;
  }

  samples(name: string): Sample[] {
    return this.family(name).data;
  }

  /** The value (a histogram's count) of the one sample whose labels include `labels`; 0 when there is none. */
  value(name: string, labels: Record<string, string> = {}): number {
    const found = this.samples(name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
    if (found.length === 0) return 0;
    const sample = found[0];
    return 'value' in sample ? sample.value : (sample.count ?? 0);
  }
}

const promtoolMissing = spawnSync('promtool', ['--version']).error !== undefined;

function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

describe('metrics and readiness with a real Agent: the contract names, promtool, /readyz', function () {
  this.timeout(90_000);
  let f: Fleet;
  let serverId: string;
  const scrape = async () => {
    const res = await f.t.api.get('/metrics');
    expect(res.status).to.equal(200);
    return Scrape.parse(res.text);
  };
  const running = (s: ServerDetail) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED' && s.observedGeneration === s.generation;

  before(async () => {
    f = await startFleet();
    const created = await f.admin.post<ServerDetail>('/servers', {
      name: 'metered', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'installed and READY');
  });
  after(async () => f.dispose());

  it('times a desired change until the Agent reports its generation (cairn_reconcile_duration_seconds)', async () => {
    const before = (await scrape()).value('cairn_reconcile_duration_seconds');
    expect(before, 'the install (generation 1) was timed').to.be.at.least(1);
    const started = await f.admin.post<ServerDetail>(`/servers/${serverId}/start`);
    expect(started.status, started.text).to.equal(202);
    await waitForServer(f.admin, serverId, running, 'RUNNING and CONVERGED');
    const after = await scrape();
    expect(after.value('cairn_reconcile_duration_seconds')).to.equal(before + 1);
    const [histogram] = after.samples('cairn_reconcile_duration_seconds');
    expect('sum' in histogram && histogram.sum).to.be.above(0);
  });

  it('exposes every contract name with its type and labels, counts the fleet when scraped, and no label holds an id', async () => {
    const stream = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${serverId}/console?tail=10`, { cookie: f.admin.auth.cookie! });
    try {
      expect(stream.status).to.equal(200);
      const s = await scrape();
      for (const [name, expected] of Object.entries(contract)) {
        const family = s.family(name);
        expect(family.type, name).to.equal(expected.type);
        expect(family.help, `${name} has help text`).to.match(/\w/);
        expect(family.data.length, `${name} has samples`).to.be.above(0);
        for (const sample of family.data) expect(Object.keys(sample.labels).sort(), name).to.deep.equal(expected.labels);
      }
      expect(s.value('cairn_build_info', { version: cairnVersion })).to.equal(1);
      expect(s.value('cairn_servers', { phase: 'READY', runtime_state: 'RUNNING', convergence: 'CONVERGED' })).to.equal(1);
      expect(s.samples('cairn_servers').reduce((n, x) => n + ('value' in x ? x.value : 0), 0), 'one server in all').to.equal(1);
      expect(s.value('cairn_nodes', { admin_state: 'ENABLED', connection_state: 'HEALTHY' })).to.equal(1);
      expect(s.value('cairn_agents_connected')).to.equal(1);
      expect(s.value('cairn_console_streams')).to.equal(1);
      expect(s.value('cairn_http_requests_total', { method: 'GET', route: '/api/v1/servers/:serverId', status: '200' })).to.be.above(0);
      expect(s.value('cairn_http_request_duration_seconds', { method: 'POST', route: '/api/v1/servers/:serverId/start', status: '202' })).to.equal(1);
      expect(s.value('cairn_workflows_total', { kind: 'MIGRATE', result: 'succeeded' })).to.equal(0);
      expect(s.value('cairn_backups_total', { trigger: 'MANUAL', result: 'SUCCEEDED' })).to.equal(0);
      for (const [name, family] of s.families) {
        for (const sample of family.data) {
          for (const [label, value] of Object.entries(sample.labels)) expect(value, `${name}{${label}}`).not.to.match(uuid);
        }
      }
      for (const id of [serverId, f.nodeId, f.teamId]) expect(s.text).not.to.include(id);
    } finally {
      stream.close();
    }
    await waitFor(async () => (await scrape()).value('cairn_console_streams') === 0, { what: 'the closed console stream to leave the gauge' });
  });

  it('passes promtool check metrics', async function () {
    if (promtoolMissing) {
      // promtool comes from Debian's prometheus package, which .ci/run installs; a developer machine may lack it.
      this.skip();
    }
    const { code, output } = await promtoolCheck((await scrape()).text);
    expect(output.trim(), 'promtool findings').to.equal('');
    expect(code).to.equal(0);
  });

  it('GET /readyz: ready with the Agent link reported beside the store', async () => {
    const res = await f.t.api.get('/readyz');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ready', store: { ok: true, writable: true }, agentLink: { listening: true, agentsConnected: 1 } });
  });

  it('GET /readyz: 503 within about a second when the store does not answer a ping', async () => {
    const { repos } = f.t.controller;
    const ping = repos.ping.bind(repos);
    repos.ping = () => new Promise<void>(() => undefined);
    try {
      const started = performance.now();
      const res = await f.t.api.get('/readyz');
      expect(performance.now() - started).to.be.below(1_800);
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.equal({
        status: 'unready', store: { ok: false, writable: false, detail: 'no answer to a ping within 1000 ms' }, agentLink: { listening: true, agentsConnected: 1 },
      });
    } finally {
      repos.ping = ping;
    }
    expect((await f.t.api.get('/readyz')).status).to.equal(200);
  });
});

describe('/metrics behind --metrics-token', () => {
  it('answers 401 with WWW-Authenticate without the token or with another, and the metrics with it; no HSTS over plain HTTP', async () => {
    const t = await startTestController({ extraArgs: ['--metrics-token', 'scrape-secret-1'] });
    try {
      const none = await fetch(`${t.baseUrl}/metrics`);
      expect(none.status).to.equal(401);
      expect(none.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect(((await none.json()) as { code: string }).code).to.equal('unauthenticated');
      expect((await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: 'Bearer scrape-secret-2' } })).status).to.equal(401);
      const scraped = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: 'Bearer scrape-secret-1' } });
      expect(scraped.status).to.equal(200);
      expect(await scraped.text()).to.include('cairn_build_info');
      expect(scraped.headers.get('strict-transport-security')).to.equal(null);
    } finally {
      await t.dispose();
    }
  });
});
