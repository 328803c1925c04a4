import { expect } from 'chai';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, EnrollmentIssued, Team } from '../support/api-types.js';
import { runProgram } from '../support/run-program.js';

describe('cairn CLI against a real Controller', function () {
  this.timeout(60_000);
  let t: TestController;
  let home: string;
  const cli = (args: string[], stdin?: string) =>
    runProgram('src/cli/main.ts', args, { env: { CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' }, stdin });

  before(async () => {
    t = await startTestController();
    await setupAdmin(t);
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
  });
  after(async () => {
    await t.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('signs in with a password from stdin and keeps only an API token, mode 0600', async () => {
    const res = await cli(['auth', 'login', '--url', t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(res.code, res.stderr).to.equal(0);
    const mode = (await stat(join(home, 'credentials.json'))).mode & 0o777;
    expect(mode).to.equal(0o600);
    const who = await cli(['auth', 'whoami']);
    expect(JSON.parse(who.stdout)).to.include({ username: 'admin', globalAdmin: true });
  });

  it('creates a team and finds the action in the audit log', async () => {
    const created = await cli(['teams', 'create', '--name', 'Survival']);
    expect(created.code, created.stderr).to.equal(0);
    const team = JSON.parse(created.stdout) as Team;
    expect(team.name).to.equal('Survival');
    const audit = await cli(['audit', 'search', '--action', 'team.create']);
    const events = (JSON.parse(audit.stdout) as AuditEventPage).items;
    expect(events[0]).to.include({ targetId: team.id, actorKind: 'API_TOKEN', outcome: 'SUCCESS' });
  });

  it('creates a Node and prints its one-time enrollment token', async () => {
    const res = await cli(['nodes', 'create', '--name', 'host-2']);
    expect(res.code, res.stderr).to.equal(0);
    const created = JSON.parse(res.stdout) as EnrollmentIssued;
    expect(created.node.name).to.equal('host-2');
    expect(created.node.status.connectionState).to.equal('AWAITING_ENROLLMENT');
    expect(created.enrollmentToken.length).to.be.greaterThan(20);
  });

  it('prints the problem code and exits 1 when the API refuses', async () => {
    const res = await cli(['teams', 'create', '--name', 'Survival']);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/conflict/);
  });

  it('exits 2 with usage on an unknown command', async () => {
    const res = await cli(['frobnicate', 'now']);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.match(/unknown command/);
  });

  it('logs out by revoking its token', async () => {
    const res = await cli(['auth', 'logout']);
    expect(res.code, res.stderr).to.equal(0);
    const after = await cli(['auth', 'whoami']);
    expect(after.code).to.equal(1);
  });
});
