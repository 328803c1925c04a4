import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { TotpEnrolment, TotpRecoveryCodes } from '../support/api-types.js';
import { adminCredentials, createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { builtProgram, repoRoot, runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';
import { shellQuote } from '../../src/cli/shell-quote.js';

/**
 * A built `cairn` on a real pseudo-terminal (util-linux `script`), as a person at a terminal runs
 * it: what it shows on the terminal is all of `transcript`, so a password or code that was echoed
 * would be there.
 */
class Terminal {
  transcript = '';
  readonly exited: Promise<number | null>;
  private readonly child;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    const command = [process.execPath, builtProgram('cli'), ...args].map(shellQuote).join(' ');
    this.child = spawn('script', ['-qec', command, '/dev/null'], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => (this.transcript += d));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Types `line` and Enter once the terminal shows `prompt` (the program has turned echo off by then). */
  async answer(prompt: string, line: string): Promise<void> {
    await waitFor(() => this.transcript.includes(prompt), { timeoutMs: 10_000, what: `the prompt ${prompt}` });
    this.child.stdin.write(`${line}\r`);
  }
}

describe('cairn login on a terminal: password and authentication code asked without echo', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let home: string;
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const whoami = async () => (await runBuilt('cli', ['whoami', '-o', 'name'], { env: env() })).stdout;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-login-'));
  });
  after(async () => {
    await t.dispose();
    await rm(home, { recursive: true, force: true });
  });
  afterEach(() => rm(join(home, 'credentials.json'), { force: true }));

  it('without --password-stdin on a terminal it asks "Password: ", shows nothing typed, and signs in', async () => {
    const terminal = new Terminal(['login', '--url', t.baseUrl, '--username', adminCredentials.username], env());
    await terminal.answer('Password: ', adminCredentials.password);
    expect(await terminal.exited, terminal.transcript).to.equal(0);
    expect(terminal.transcript).to.include(`Logged in to ${t.baseUrl} as ${adminCredentials.username}.`);
    expect(terminal.transcript).to.not.include(adminCredentials.password);
    expect(await whoami()).to.equal(`user/${adminCredentials.username}\n`);
  });

  it('an account with a second factor is asked "Authentication code: " the same way, after the password', async () => {
    const { client: gina } = await createReadyUser(t, admin, 'gina');
    const password = 'second-password-2';
    const secret = (await gina.post<TotpEnrolment>('/me/totp')).body.secret;
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: t.clock.now().getTime() });
    const confirmed = await gina.post<TotpRecoveryCodes>('/me/totp/confirm', { code, password });
    expect(confirmed.status, confirmed.text).to.equal(200);
    const recovery = confirmed.body.recoveryCodes[0];

    const terminal = new Terminal(['login', '--url', t.baseUrl, '--username', 'gina'], env());
    await terminal.answer('Password: ', password);
    await terminal.answer('Authentication code: ', recovery);
    expect(await terminal.exited, terminal.transcript).to.equal(0);
    expect(terminal.transcript).to.include(`Logged in to ${t.baseUrl} as gina.`);
    expect(terminal.transcript).to.not.include(password).and.not.include(recovery);
    expect(await whoami()).to.equal('user/gina\n');
  });

  it('piped stdin without --password-stdin is refused (usage, exit 2) and not read; --password-stdin reads it', async () => {
    const args = ['login', '--url', t.baseUrl, '--username', adminCredentials.username];
    const refused = await runBuilt('cli', args, { env: env(), stdin: `${adminCredentials.password}\n` });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('pass --password-stdin');
    const piped = await runBuilt('cli', [...args, '--password-stdin'], { env: env(), stdin: `${adminCredentials.password}\n` });
    expect(piped.code, piped.stderr).to.equal(0);
    expect(await whoami()).to.equal(`user/${adminCredentials.username}\n`);
  });
});
