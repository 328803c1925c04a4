import { expect } from 'chai';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { stateDirFor, stateFiles } from '../../src/agent/runtime/state-dir.js';
import { running, supervisorRig } from '../support/supervisor-rig.js';
import { waitFor } from '../support/wait-for.js';

describe('supervisor: shim and process runtime with real processes — console', function () {
  const rig = supervisorRig();
  const { spec, newRuntime, collect } = rig;

  it('streams output, takes commands and replays the tail in order', async () => {
    const { runtime } = await newRuntime();
    running(await runtime.start('game', spec({ PRINT_LINES: '50' })));
    const first = await collect(runtime, 'game', 1000);
    await first.waitLine('line 49');
    await runtime.sendCommand('game', 'hello there');
    await first.waitLine('echo: hello there');

    const second = await collect(runtime, 'game', 10);
    await second.waitLine('echo: hello there');
    expect(second.lines.map((line) => line.text)).to.deep.equal([...Array.from({ length: 9 }, (_, i) => `line ${41 + i}`), 'echo: hello there']);
    const seqs = second.lines.map((line) => line.seq);
    expect(seqs).to.deep.equal(seqs.map((_, i) => seqs[0] + i));
    first.detach();
    second.detach();
  });

  it('cuts long lines at 16 KiB on a character boundary, handles CRLF and stderr', async () => {
    const { runtime } = await newRuntime();
    await runtime.start('game', spec());
    const reader = await collect(runtime, 'game', 10);
    await reader.waitLine('fake game ready');
    for (const word of ['long', 'euro', 'crlf', 'err']) await runtime.sendCommand('game', word);
    await reader.waitLine('to stderr');
    const [long, euro, crlfFirst, crlfSecond, stderr] = reader.lines.slice(1);
    expect([long.text.length, long.text === 'x'.repeat(16384), long.truncated]).to.deep.equal([16384, true, true]);
    expect([euro.text.length, euro.text === '\u20ac'.repeat(5461), Buffer.byteLength(euro.text), euro.truncated]).to.deep.equal([5461, true, 16383, true]);
    expect([crlfFirst.text, crlfSecond.text, crlfFirst.truncated]).to.deep.equal(['first', 'second', false]);
    expect([stderr.text, stderr.stream]).to.deep.equal(['to stderr', 'stderr']);
    reader.detach();
  });

  it('serves several readers; one that detaches stops receiving while the others go on', async () => {
    const { runtime } = await newRuntime();
    await runtime.start('game', spec());
    const kept = await collect(runtime, 'game', 0);
    const dropped = await collect(runtime, 'game', 0);
    dropped.detach();
    await runtime.sendCommand('game', 'after detach');
    await kept.waitLine('echo: after detach');
    expect(dropped.lines).to.deep.equal([]);
    expect(dropped.ends).to.deep.equal([]);
    kept.detach();
  });

  it('flushes a last line without newline and reports the exit code', async () => {
    const { runtime, exits } = await newRuntime();
    await runtime.start('game', spec());
    const reader = await collect(runtime, 'game', 0);
    await runtime.sendCommand('game', 'partial');
    await reader.waitLine('no newline at the end');
    const [{ exit }] = await waitFor(() => exits.length > 0 && exits);
    expect(exit).to.include({ cause: 'exited', code: 3 });
    await waitFor(() => reader.ends.length > 0);
    expect(reader.ends[0]).to.deep.equal({ kind: 'exit', exit });
  });

  it('answers a malformed frame with an error and keeps serving', async () => {
    const { runtime, dataDir } = await newRuntime();
    await runtime.start('game', spec());
    const socket = connect(join(stateDirFor(dataDir, 'game'), stateFiles.socket));
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.write('this is not json\n{"id":7,"type":"explode"}\n{"id":8,"type":"input","line":"a\\nb"}\n{"id":9,"type":"status"}\n');
    await waitFor(() => received.split('\n').length > 4);
    const replies = received.trim().split('\n').map((line) => JSON.parse(line) as { id: number | null; type: string; code?: string });
    expect(replies.map((reply) => [reply.id, reply.type, reply.code])).to.deep.equal([
      [null, 'error', 'malformed'],
      [7, 'error', 'invalid_request'],
      [8, 'error', 'invalid_request'],
      [9, 'status', undefined],
    ]);
    socket.destroy();
    running(await runtime.status('game'));
  });

  it('reports CPU time and memory of the game process', async () => {
    const { runtime } = await newRuntime();
    const { gamePid } = running(await runtime.start('game', spec()));
    // Right after the spawn the child may not have finished loading its program, so its memory is polled.
    const usage = await waitFor(async () => {
      const sample = await runtime.usage('game');
      return (sample?.memoryBytes ?? 0) > 1024 * 1024 && sample;
    }, { what: 'the game\'s memory above 1 MiB' });
    expect(usage?.pid).to.equal(gamePid);
    expect(usage?.cpuMillis).to.be.at.least(0);
  });

  it('works with a state dir too deep for a unix socket path', async () => {
    const deep = join(rig.root, 'a'.repeat(60), 'b'.repeat(60));
    await mkdir(deep, { recursive: true });
    const { runtime } = await newRuntime({}, deep);
    await runtime.start('game', spec());
    const reader = await collect(runtime, 'game', 10);
    await reader.waitLine('fake game ready');
    await runtime.sendCommand('game', 'deep');
    await reader.waitLine('echo: deep');
    reader.detach();
  });
});
