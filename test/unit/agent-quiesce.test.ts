import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdIfAsked } from '../../src/agent/transfers/backup-host.js';
import { Quiescer, type ConsoleAccess } from '../../src/agent/transfers/quiesce.js';
import type { ServerOnNode } from '../../src/agent/reconciler/reconciler.js';
import type { AttachOptions, OutputLine } from '../../src/agent/runtime/runtime-types.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { TemplateBackupSpec } from '../../src/shared/templates.js';
import { failureOf } from '../support/agent-failure.js';

const spec: TemplateBackupSpec = { quiesce: ['save-off', 'save-all flush'], waitFor: 'Saved the game$', resume: ['save-on'], timeoutSeconds: 1 };

/** A console that answers commands as a Minecraft server does, or not at all when told to hang. */
class FakeConsole implements ConsoleAccess {
  readonly typed: string[] = [];
  readonly readers = new Set<(line: OutputLine) => void>();
  hang = false;
  /** Fails its save as a game on a full disk does: the error, and never the save line. */
  diskFull = false;
  /** Says `Saved the game` while save-off is typed, as an automatic save finishing just then would. */
  earlySave = false;
  private seq = 0;

  async attach(_serverId: string, _options: AttachOptions, onLine: (line: OutputLine) => void): Promise<() => void> {
    this.readers.add(onLine);
    return () => this.readers.delete(onLine);
  }

  async sendCommand(_serverId: string, line: string): Promise<void> {
    this.typed.push(line);
    if (this.hang) return;
    if (line === 'save-off' && this.earlySave) this.print('[12:00:00 INFO]: Saved the game');
    if (line === 'save-all flush' && this.diskFull) {
      setTimeout(() => this.print('[12:00:00 ERROR]: Failed to save the game: ENOSPC: no space left on device, write'), 5);
      return;
    }
    if (line === 'save-all flush') {
      setTimeout(() => this.print('[12:00:00 INFO]: Saving the game (this may take a moment!)'), 5);
      setTimeout(() => this.print('[12:00:00 INFO]: Saved the game'), 20);
    }
  }

  print(text: string): void {
    for (const reader of this.readers) reader({ seq: ++this.seq, stream: 'stdout', text, truncated: false });
  }
}

describe('agent: quiescing a server for a consistent copy', () => {
  it('types the quiesce commands, waits for the save line, and resumes exactly once', async () => {
    const console = new FakeConsole();
    const quiescer = new Quiescer(console, silentLogger);
    expect(quiescer.holds('s1')).to.equal(false);
    const release = await quiescer.hold('s1', spec);
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush']);
    expect(console.readers.size, 'the console reader is let go once the line came').to.equal(0);
    expect(quiescer.holds('s1'), 'held: the server does not fall asleep under the copy').to.equal(true);
    await release();
    await release();
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush', 'save-on']);
    expect(quiescer.holds('s1')).to.equal(false);
  });

  it('counts only a save line printed after the last quiesce command', async () => {
    const console = new FakeConsole();
    console.earlySave = true;
    const quiescer = new Quiescer(console, silentLogger);
    let held = false;
    const holding = quiescer.hold('s1', spec).then((release) => {
      held = true;
      return release;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush']);
    expect(held, 'not held on the early line').to.equal(false);
    await (await holding)();
  });

  it('shares one quiesce between holds of a server and resumes after the last release', async () => {
    const console = new FakeConsole();
    const quiescer = new Quiescer(console, silentLogger);
    const [a, b] = await Promise.all([quiescer.hold('s1', spec), quiescer.hold('s1', spec)]);
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush']);
    await a();
    expect(console.typed).to.not.include('save-on');
    await b();
    expect(console.typed.filter((c) => c === 'save-on')).to.have.length(1);
    const c = await quiescer.hold('s1', spec);
    await c();
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush', 'save-on', 'save-off', 'save-all flush', 'save-on']);
  });

  it('fails with QUIESCE_FAILED when the line does not come before the deadline, and resumes', async () => {
    const console = new FakeConsole();
    console.hang = true;
    const quiescer = new Quiescer(console, silentLogger);
    const started = Date.now();
    const error = await failureOf(quiescer.hold('s1', spec));
    expect(error.code).to.equal('QUIESCE_FAILED');
    expect(error.message).to.match(/within 1 s/);
    expect(Date.now() - started).to.be.within(900, 3000);
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush', 'save-on']);
    expect(console.readers.size).to.equal(0);
    console.hang = false;
    const release = await quiescer.hold('s1', spec);
    await release();
    expect(console.typed.slice(3)).to.deep.equal(['save-off', 'save-all flush', 'save-on']);
  });

  it('fails with QUIESCE_FAILED when the server cannot take the commands, and still tries to resume', async () => {
    const console = new FakeConsole();
    console.sendCommand = async (_id, line) => {
      console.typed.push(line);
      throw new Error('the server is not running');
    };
    const error = await failureOf(new Quiescer(console, silentLogger).hold('s1', spec));
    expect(error.code).to.equal('QUIESCE_FAILED');
    expect(error.message).to.include('not running');
    expect(console.typed).to.deep.equal(['save-off', 'save-on']);
  });

  it('fails with NO_SPACE at once when the game says its save found the disk full, and resumes', async () => {
    const console = new FakeConsole();
    console.diskFull = true;
    const quiescer = new Quiescer(console, silentLogger);
    const started = Date.now();
    const error = await failureOf(quiescer.hold('s1', { ...spec, timeoutSeconds: 30 }));
    expect(error.code).to.equal('NO_SPACE');
    expect(Date.now() - started).to.be.below(2000);
    expect(console.typed).to.deep.equal(['save-off', 'save-all flush', 'save-on']);
    expect(console.readers.size).to.equal(0);
  });

  it('does not quiesce a server whose disk has no block left: NO_SPACE before any command', async function () {
    if (process.getuid?.() !== 0) this.skip(); // a full disk is a tiny tmpfs, and mounting one takes root
    const root = await mkdtemp(join(tmpdir(), 'cairn-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', root]);
    try {
      await writeFile(join(root, 'fill'), Buffer.alloc(128 * 1024)).catch(() => undefined);
      const console = new FakeConsole();
      const server = { root, running: true, template: { backup: spec } } as unknown as ServerOnNode;
      expect((await failureOf(holdIfAsked(new Quiescer(console, silentLogger), 's1', server, true))).code).to.equal('NO_SPACE');
      expect(console.typed).to.deep.equal([]);
    } finally {
      execFileSync('umount', [root]);
      await rm(root, { recursive: true });
    }
  });
});
