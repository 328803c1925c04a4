import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { runProgram } from '../support/run-program.js';

const serverId = '0190a0a0-0000-7000-8000-000000000001';
const gameLine = 'Steve: \x1b]0;owned\x07\x1b[2J\x1b[31mhi\x1b[0m\tthere\r\x07';

/**
 * `cairn logs` (through tsx) against a stand-in Controller whose console replays one line full of
 * terminal control, as a game echoing a player's chat could send.
 */
describe('cairn logs: terminal control in the console', function () {
  this.timeout(60_000);
  let http: Server;
  let url: string;

  before(async () => {
    http = createServer((req, res) => {
      if (req.url === `/api/v1/servers/${serverId}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: serverId, name: 'lobby', teamId: serverId, desiredState: 'RUNNING', runtimeState: 'RUNNING' }));
        return;
      }
      if (req.url?.startsWith(`/api/v1/servers/${serverId}/console`)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: line\ndata: ${JSON.stringify({ at: new Date().toISOString(), text: gameLine })}\n\nevent: replayed\ndata: {}\n\n`);
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => http.close(() => resolve())));

  const cairn = (args: string[]) => runProgram('src/cli/main.ts', args, {
    env: { CAIRN_URL: url, CAIRN_TOKEN: 'cairn_pat_test', CAIRN_CREDENTIALS: join(tmpdir(), 'cairn-no-credentials.json') },
  });

  it('prints the line without the sequences, and as it came with --raw', async () => {
    const clean = await cairn(['logs', serverId]);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stdout).to.equal('Steve: hi\tthere\n');
    const raw = await cairn(['logs', serverId, '--raw']);
    expect(raw.code, raw.stderr).to.equal(0);
    expect(raw.stdout).to.equal(`${gameLine}\n`);
  });
});
