import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '../support/wait-for.js';

const mainJs = join(process.cwd(), 'dist', 'src', 'controller', 'main.js');

describe('the Controller\'s logs as text (--log-format text)', function () {
  this.timeout(30_000);
  let dir: string;
  let child: ChildProcess | undefined;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'cairn-logtext-'))));
  after(async () => {
    child?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one readable line per event: time, level, message, then its fields; the setup line says where to go', async () => {
    child = spawn(process.execPath, [mainJs, '--log-format', 'text', '--data-dir', join(dir, 'data'), '--http-port', '0', '--grpc-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const { httpPort } = JSON.parse(line) as { httpPort: number };
    const setup = await waitFor(() => stderr.split('\n').find((l) => l.includes('Setup pending')), { what: 'the setup line' });
    expect(setup).to.match(new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\] INFO: Setup pending: open http://127\\.0\\.0\\.1:${httpPort}/ and enter the one-time setup code from .*setup-code \\(or send it with POST /api/v1/setup\\) \\{"event":"setup_pending"`));
    for (const l of stderr.split('\n').filter(Boolean)) expect(l, 'no JSON line').to.not.match(/^\{/);
  });

  it('refuses a format it does not know (exit 2)', async () => {
    const bad = spawn(process.execPath, [mainJs, '--log-format', 'xml', '--data-dir', join(dir, 'other')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    bad.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [code] = (await once(bad, 'exit')) as [number];
    expect(code).to.equal(2);
    expect(stderr).to.include('--log-format must be text or json, got "xml"');
  });
});
