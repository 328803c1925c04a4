import { expect } from 'chai';
import { parseLaunchSpec } from '../../src/agent/runtime/launch-spec.js';
import { parseRssBytes } from '../../src/agent/runtime/process-usage.js';
import { parseProcStat } from '../../src/shared/proc-stat.js';
import { encodeFrame, parseGameExit, parseMessage, parseRequest, ProtocolError } from '../../src/agent/runtime/shim-protocol.js';

function refusal(action: () => unknown): ProtocolError {
  try {
    action();
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error('expected a ProtocolError');
}

describe('runtime: shim protocol', () => {
  it('parses every request type', () => {
    expect(parseRequest('{"id":1,"type":"status"}')).to.deep.equal({ id: 1, type: 'status' });
    expect(parseRequest('{"id":2,"type":"attach","tail":100}')).to.deep.equal({ id: 2, type: 'attach', tail: 100 });
    expect(parseRequest('{"id":3,"type":"input","line":"say hi"}')).to.deep.equal({ id: 3, type: 'input', line: 'say hi' });
    expect(parseRequest('{"id":4,"type":"stop"}')).to.deep.equal({ id: 4, type: 'stop', timeoutMs: null });
    expect(parseRequest('{"id":5,"type":"stop","timeoutMs":500}')).to.deep.equal({ id: 5, type: 'stop', timeoutMs: 500 });
    expect(parseRequest('{"id":6,"type":"kill"}')).to.deep.equal({ id: 6, type: 'kill' });
    expect(parseRequest('{"id":7,"type":"release"}')).to.deep.equal({ id: 7, type: 'release' });
  });

  it('refuses malformed and invalid requests with a code and, when known, the id', () => {
    expect(refusal(() => parseRequest('nope'))).to.include({ code: 'malformed', requestId: null });
    expect(refusal(() => parseRequest('[1]'))).to.include({ code: 'malformed' });
    expect(refusal(() => parseRequest('{"type":"status"}'))).to.include({ code: 'invalid_request', requestId: null });
    expect(refusal(() => parseRequest('{"id":3,"type":"reboot"}'))).to.include({ code: 'invalid_request', requestId: 3 });
    expect(refusal(() => parseRequest('{"id":4,"type":"input","line":"a\\rb"}'))).to.include({ code: 'invalid_request', requestId: 4 });
    expect(refusal(() => parseRequest('{"id":5,"type":"attach","tail":-1}'))).to.include({ requestId: 5 });
    expect(refusal(() => parseRequest(`{"id":6,"type":"input","line":"${'x'.repeat(64 * 1024 + 1)}"}`))).to.include({ requestId: 6 });
    expect(refusal(() => parseRequest('{"id":7,"type":"stop","timeoutMs":0}'))).to.include({ requestId: 7 });
  });

  it('round-trips messages through encodeFrame and parseMessage', () => {
    const messages = [
      { type: 'line', line: { seq: 3, stream: 'stderr', text: 'boom', truncated: false } },
      { type: 'exit', exit: { code: 0, signal: null, at: '2030-01-01T00:00:00.000Z', cause: 'stopped', stoppedBy: 'sigterm' } },
      { id: 1, type: 'status', status: { serverId: 's', shimPid: 10, gamePid: 11, startedAt: 'now', state: 'running' } },
      { id: 2, type: 'attached', replayed: 5 },
      { id: 3, type: 'ok' },
      { id: 4, type: 'exited', exit: { code: null, signal: 'SIGKILL', at: 'now', cause: 'killed' } },
      { id: null, type: 'error', code: 'malformed', message: 'bad' },
    ] as const;
    for (const message of messages) expect(parseMessage(encodeFrame(message).trim())).to.deep.equal(message);
  });

  it('refuses messages that break the protocol', () => {
    expect(refusal(() => parseMessage('{"id":1,"type":"status","status":{"state":"running"}}'))).to.include({ code: 'malformed' });
    expect(refusal(() => parseMessage('{"type":"line","line":{"seq":-1,"stream":"stdout","text":"x","truncated":false}}'))).to.include({ code: 'malformed' });
    expect(refusal(() => parseMessage('{"id":1,"type":"surprise"}'))).to.include({ code: 'malformed' });
    expect(refusal(() => parseMessage('{"id":1,"type":"error","code":"weird","message":"m"}'))).to.include({ code: 'malformed' });
  });

  it('reads every exit cause and refuses an unknown one', () => {
    const base = { code: 1, signal: null, at: 'now' };
    expect(parseGameExit({ ...base, cause: 'spawn_failed', error: 'ENOENT' })).to.deep.equal({ ...base, cause: 'spawn_failed', error: 'ENOENT' });
    expect(parseGameExit({ ...base, cause: 'shim_lost' })).to.deep.equal({ ...base, cause: 'shim_lost' });
    expect(refusal(() => parseGameExit({ ...base, cause: 'stopped', stoppedBy: 'asking nicely' }))).to.include({ code: 'malformed' });
    expect(refusal(() => parseGameExit({ ...base, cause: 'vanished' }))).to.include({ code: 'malformed' });
  });
});

describe('runtime: launch spec', () => {
  const valid = { command: '/usr/bin/java', args: ['-jar', 'server.jar'], cwd: '/srv/a', env: { A: '1' }, stopCommand: 'stop', stopTimeoutMs: 1000, termTimeoutMs: 1000 };

  it('accepts a valid spec and a null stop command', () => {
    expect(parseLaunchSpec(valid)).to.deep.equal(valid);
    expect(parseLaunchSpec({ ...valid, stopCommand: null }).stopCommand).to.equal(null);
  });

  it('refuses missing or wrong fields', () => {
    for (const broken of [{ ...valid, command: '' }, { ...valid, args: [1] }, { ...valid, env: { A: 1 } }, { ...valid, stopCommand: 'a\nb' }, { ...valid, stopTimeoutMs: 0 }, null]) {
      expect(() => parseLaunchSpec(broken)).to.throw();
    }
  });
});

describe('runtime: /proc parsing', () => {
  it('reads state, parent, start time and CPU ticks after a command name with spaces and parentheses', () => {
    const fields = ['S', '1', '2', '3', '0', '-1', '4194560', '100', '0', '0', '0', '250', '50', '0', '0', '20', '0', '3', '0', '98765', '1000', '200'];
    expect(parseProcStat(`4242 (my (odd) game) ${fields.join(' ')}\n`)).to.deep.equal({ state: 'S', parentPid: 1, startTicks: 98765, cpuTicks: 300 });
  });

  it('reads resident memory from status', () => {
    expect(parseRssBytes('Name:\tjava\nVmRSS:\t  2048 kB\nThreads:\t40\n')).to.equal(2048 * 1024);
    expect(parseRssBytes('Name:\tkthread\n')).to.equal(null);
  });
});
