import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { privateGamePorts } from '../support/game-ports.js';
import { waitFor } from '../support/wait-for.js';

const shellQuote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * `npm start` as a person sees it: the README's start command on a terminal (a pseudo-terminal from
 * util-linux's `script`), the built Controller with its local Agent. What stays on the screen is words,
 * with the address to open and the setup code's place last.
 */
describe('the first start on a terminal (npm start through a pseudo-terminal)', function () {
  this.timeout(90_000);
  let dir: string;
  let child: ChildProcess | undefined;
  let screen = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-first-start-'));
    const ports = await privateGamePorts();
    const command = ['node', 'scripts/start.js', '--data-dir', join(dir, 'data'), '--http-port', '0', '--grpc-port', '0', '--game-ports', `${ports.first}-${ports.last}`]
      .map(shellQuote).join(' ');
    // The local Agent runs games unboxed here: this test is about what the terminal shows, not the box.
    child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, CAIRN_ISOLATION: 'off', MONGODB_URI: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (screen += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (screen += d));
    await waitFor(() => screen.includes('Stop it with Ctrl-C.'), { timeoutMs: 60_000, what: 'the ready lines', explain: () => screen.slice(-3000) });
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  });

  const lines = () => screen.split(/\r?\n/).map((line) => stripVTControlCharacters(line).trimEnd());

  it('prints no JSON line: the build check and the listening line are words on a terminal', () => {
    const json = lines().filter((line) => line.startsWith('{'));
    expect(json, screen).to.deep.equal([]);
  });

  it('ends with the web UI address and where the setup code is, after the local Agent connected', () => {
    const all = lines();
    const ready = all.indexOf('Cairn is running.');
    expect(ready, screen).to.be.greaterThan(-1);
    const summary = all.slice(ready, ready + 6).join('\n');
    expect(summary).to.match(/Web UI: +http:\/\/127\.0\.0\.1:\d+\//);
    expect(summary).to.include(`Setup code:  in ${join(dir, 'data', 'setup-code')}`);
    // The Controller's own line; the Agent's process may still add its last words in the same instant.
    expect(all.findIndex((line) => line.includes('Agent connected')), screen).to.be.within(0, ready);
  });

  it('says the software sync failed in one line, not once per template', () => {
    const warnings = lines().filter((line) => /software versions could not be synced|software sync failed/.test(line));
    expect(warnings.length, screen).to.be.at.most(1);
  });
});
