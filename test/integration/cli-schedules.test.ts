import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as schedules from '../../src/controller/schemas/schedules.js';
import type { PageOf, ServerDetail } from '../support/api-types.js';
import { adminCredentials } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

type Schedule = schedules.Schedule;
type ScheduleRun = schedules.ScheduleRun;
type SchedulePage = PageOf<typeof schedules.Schedule>;
type RunPage = PageOf<typeof schedules.ScheduleRun>;

/**
 * `cairn create|get|run|delete schedule` as users run them (the built binary, `npm run build`
 * first), against a Controller and a real Agent running simcraft.
 */
describe('cairn CLI: schedules', function () {
  this.timeout(120_000);
  let f: Fleet;
  let home: string;
  const servers: Record<string, string> = {};
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: env(), stdin });
  const ok = async (args: string[]) => {
    const res = await cairn(args);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  const json = async <T>(args: string[]) => JSON.parse(await ok([...args, '-o', 'json'])) as T;
  const schedulesOf = async (server: string) => (await f.admin.get<SchedulePage>(`/servers/${servers[server]}/schedules`)).body.items;

  before(async () => {
    f = await startFleet();
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    for (const name of ['alpha', 'beta']) {
      const created = await f.admin.post<ServerDetail>('/servers', {
        name, teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 },
      });
      expect(created.status, created.text).to.equal(201);
      servers[name] = created.body.id;
    }
    for (const id of Object.values(servers)) await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY', 60_000);
    expect((await f.admin.post(`/servers/${servers.alpha}/start`)).status).to.equal(202);
    await waitForServer(f.admin, servers.alpha, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'alpha RUNNING', 30_000);
    const login = await cairn(['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(login.code, login.stderr).to.equal(0);
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await f?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
    await rm(home, { recursive: true, force: true });
  });

  it('create schedule --restart --warn: a restart warned ahead, after the commands whatever the order of the flags', async () => {
    const out = await ok(['create', 'schedule', 'nightly', '--server', 'alpha', '--cron', '0 4 * * *', '--timezone', 'Europe/Berlin',
      '--restart', '--warn', '60,30,10', '--command', 'save-all', '--command', 'say bye, all']);
    const [created] = await schedulesOf('alpha');
    expect(out).to.equal(`schedule/nightly created on server/alpha, next run ${created.nextRunAt}\n`);
    expect(created).to.include({ name: 'nightly', cron: '0 4 * * *', timezone: 'Europe/Berlin', enabled: true });
    expect(created.tasks.map((t) => [t.action, t.command ?? t.warnSeconds])).to.deep.equal([['command', 'save-all'], ['command', 'say bye, all'], ['restart', [60, 30, 10]]]);
    expect(new Date(created.nextRunAt!).toLocaleTimeString('en-GB', { timeZone: 'Europe/Berlin', hourCycle: 'h23' })).to.equal('04:00:00');
  });

  it('flags that make no schedule are usage errors (exit 2); the API\'s refusal of a cron names the field (exit 1)', async () => {
    const none = await cairn(['create', 'schedule', 'idle', '--server', 'alpha', '--cron', '0 4 * * *']);
    expect(none.code).to.equal(2);
    expect(none.stderr).to.include('give the schedule something to do');
    const warnAlone = await cairn(['create', 'schedule', 'idle', '--server', 'alpha', '--cron', '0 4 * * *', '--command', 'list', '--warn', '30']);
    expect(warnAlone.code).to.equal(2);
    expect(warnAlone.stderr).to.include('--warn needs --restart');
    const badCron = await cairn(['create', 'schedule', 'idle', '--server', 'alpha', '--cron', '0 4 * *', '--command', 'list']);
    expect(badCron.code).to.equal(1);
    expect(badCron.stderr).to.match(/^Error from server \(invalid_request\): body\.cron: /);
    expect((await schedulesOf('alpha')).map((s) => s.name)).to.deep.equal(['nightly']);
  });

  it('get schedules lists each with its server, cron, timezone and next run; --server narrows; -o wide adds the tasks', async () => {
    await ok(['create', 'schedule', 'greet', '--server', 'alpha', '--cron', '*/5 * * * *', '--command', 'say hello from the clock']);
    await ok(['create', 'schedule', 'nightly', '--server', 'beta', '--cron', '30 3 * * 1', '--restart']);
    const alpha = await schedulesOf('alpha');
    const nightly = alpha.find((s) => s.name === 'nightly')!;
    const table = await ok(['get', 'schedules']);
    expect(table.split('\n')[0]).to.match(/^NAME\s+SERVER\s+CRON\s+TIMEZONE\s+ENABLED\s+NEXT-RUN\s+LAST-RESULT$/);
    expect(table).to.match(new RegExp(`^nightly\\s+alpha\\s+0 4 \\* \\* \\*\\s+Europe/Berlin\\s+yes\\s+${nightly.nextRunAt!.replace(/\./g, '\\.')}\\s+<none>$`, 'm'));
    expect(table).to.match(/^greet\s+alpha\s+\*\/5 \* \* \* \*\s+UTC\s+yes\s+\S+Z\s+<none>$/m);
    expect(table).to.match(/^nightly\s+beta\s+30 3 \* \* 1\s+UTC\s+yes\s+\S+Z\s+<none>$/m);
    expect(await ok(['get', 'schedules', '--server', 'beta', '-o', 'name'])).to.equal('schedule/nightly\n');
    expect(await ok(['get', 'schedules', '--server', 'alpha', '-o', 'wide'])).to.match(/^nightly\s.*\scommand,command,restart\s+no\s+<none>\s+[0-9a-f-]{36}$/m);
    expect((await json<Schedule>(['get', 'schedule', 'greet'])).serverId).to.equal(servers.alpha);
  });

  it('run schedule returns the run; it goes on in the Controller and ends SUCCEEDED with its task', async () => {
    const run = await json<ScheduleRun>(['run', 'schedule', 'greet']);
    const greet = (await schedulesOf('alpha')).find((s) => s.name === 'greet')!;
    expect(run.scheduleId).to.equal(greet.id);
    const ended = await waitFor(async () => {
      const found = (await f.admin.get<RunPage>(`/schedules/${greet.id}/runs`)).body.items.find((r) => r.id === run.id);
      return found && found.result !== 'RUNNING' ? found : undefined;
    }, { timeoutMs: 30_000, what: 'the run to end' });
    expect(ended.result).to.equal('SUCCEEDED');
    expect(ended.tasks.map((t) => [t.action, t.result])).to.deep.equal([['command', 'SUCCEEDED']]);
    expect(await ok(['run', 'schedule', 'greet', '--server', 'alpha'])).to.match(/^schedule\/greet run [0-9a-f-]{36} [A-Z]+( \([a-z_]+\))?\n$/);
    expect(await ok(['get', 'schedules', '--server', 'alpha'])).to.match(/^greet\s.*\s(RUNNING|SUCCEEDED|SKIPPED)$/m);
  });

  it('a name two servers\' schedules share is refused, listing both; --server or the id picks one; an unknown name is not found', async () => {
    const res = await cairn(['run', 'schedule', 'nightly']);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.include('schedule name "nightly" is ambiguous: 2 schedules match; name one by id, or narrow with --server:');
    const both = [...await schedulesOf('alpha'), ...await schedulesOf('beta')].filter((s) => s.name === 'nightly');
    for (const s of both) expect(res.stderr).to.include(`${s.id}  server ${s.serverId === servers.alpha ? 'alpha' : 'beta'}`);
    const byId = both.find((s) => s.serverId === servers.beta)!.id;
    expect((await json<Schedule>(['get', 'schedule', byId])).serverId).to.equal(servers.beta);

    const unknown = await cairn(['run', 'schedule', 'weekly']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal('Error from server (not_found): schedule "weekly" not found\n');
    const wrongType = await cairn(['run', 'server', 'alpha']);
    expect(wrongType.code).to.equal(2);
    expect(wrongType.stderr).to.include('cannot run "server" (only schedule)');
  });

  it('get runs --schedule NAME lists its runs newest first: when, result, reason and each task\'s result', async () => {
    const greet = (await schedulesOf('alpha')).find((s) => s.name === 'greet')!;
    const runs = await waitFor(async () => {
      const items = (await f.admin.get<RunPage>(`/schedules/${greet.id}/runs`)).body.items;
      return items.length === 2 && items.every((r) => r.result !== 'RUNNING') ? items : undefined;
    }, { timeoutMs: 30_000, what: 'both runs of greet to end' });
    const table = await ok(['get', 'runs', '--schedule', 'greet']);
    const lines = table.trim().split('\n').map((l) => l.split(/\s{3,}/));
    expect(lines[0]).to.deep.equal(['SCHEDULED-FOR', 'RESULT', 'REASON', 'TASKS']);
    expect(lines.slice(1)).to.deep.equal(runs.map((r) => [r.scheduledFor, r.result, r.reason ?? '<none>', r.tasks.map((t) => `${t.action}:${t.result}`).join(',')]));
    expect(lines.at(-1)).to.deep.equal([runs[1].scheduledFor, 'SUCCEEDED', '<none>', 'command:SUCCEEDED']);
    expect(await ok(['get', 'runs', '--schedule', 'greet', '-o', 'wide'])).to.include(runs[0].id);
    expect((await json<ScheduleRun>(['get', 'run', runs[1].id, '--schedule', greet.id])).id).to.equal(runs[1].id);

    await ok(['create', 'schedule', 'quiet', '--server', 'beta', '--cron', '0 5 * * *', '--command', 'list', '--only-when-running']);
    await ok(['run', 'schedule', 'quiet']);
    expect(await ok(['get', 'runs', '--schedule', 'quiet', '--server', 'beta'])).to.match(/^\S+Z\s+SKIPPED\s+not_running\s+command:\S+$/m);
    await ok(['delete', 'schedule', 'quiet']);

    const missing = await cairn(['get', 'runs']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('cairn get runs --schedule NAME');
    const ambiguous = await cairn(['get', 'runs', '--schedule', 'nightly']);
    expect(ambiguous.code).to.equal(1);
    expect(ambiguous.stderr).to.include('schedule name "nightly" is ambiguous');
    const none = await cairn(['get', 'runs', '--schedule', 'nightly', '--server', 'beta']);
    expect(none.code, none.stderr).to.equal(0);
    expect(none.stderr).to.equal('No runs found.\n');
  });

  it('delete schedule NAME --server deletes that one only', async () => {
    expect(await ok(['delete', 'schedule', 'nightly', '--server', 'beta'])).to.equal('schedule/nightly deleted\n');
    expect(await schedulesOf('beta')).to.deep.equal([]);
    expect(await ok(['delete', 'schedule', 'nightly'])).to.equal('schedule/nightly deleted\n');
    expect((await schedulesOf('alpha')).map((s) => s.name)).to.deep.equal(['greet']);
    const gone = await cairn(['delete', 'schedule', 'nightly']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.equal('Error from server (not_found): schedule "nightly" not found\n');
  });
});
