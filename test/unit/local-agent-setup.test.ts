import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { formerLocalAgentDir, localAgentDir, moveFormerLocalAgentDir } from '../../src/controller/program/local-agent-dir.js';
import { localAgentEnvironment } from '../../src/controller/program/local-agent-env.js';
import { ensurePrivateDir } from '../../src/shared/private-dir.js';

/** A logger whose lines the test can read. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('the local Agent\'s environment', () => {
  it('keeps only the allowlisted variables of the Controller\'s, then what the Controller sets', () => {
    const env = localAgentEnvironment(
      { PATH: '/usr/bin', HOME: '/root', MONGODB_URI: 'mongodb://u:secret@db/cairn', CAIRN_TLS_KEY: '/etc/key.pem', CAIRN_ISOLATION: 'required', CAIRN_ENROLLMENT_TOKEN: 'stale', CAIRN_DATA_DIR: '/var/lib/cairn' },
      { CAIRN_LOG_LEVEL: 'debug', CAIRN_ENROLLMENT_TOKEN: undefined },
    );
    expect(env).to.deep.equal({ PATH: '/usr/bin', HOME: '/root', CAIRN_ISOLATION: 'required', CAIRN_LOG_LEVEL: 'debug' });
  });

  it('passes a fresh enrollment token', () => {
    expect(localAgentEnvironment({}, { CAIRN_ENROLLMENT_TOKEN: 'cairn_enr_x' })).to.deep.equal({ CAIRN_ENROLLMENT_TOKEN: 'cairn_enr_x' });
  });
});

describe('the local Agent\'s data dir', () => {
  let base: string;
  let dataDir: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-local-agent-dir-'));
    dataDir = join(base, 'data');
    await mkdir(dataDir);
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('is beside the Controller\'s data dir', () => {
    expect(localAgentDir('/srv/cairn/data')).to.equal('/srv/cairn/data-local-agent');
    expect(formerLocalAgentDir('/srv/cairn/data')).to.equal('/srv/cairn/data/local-agent');
  });

  it('an earlier version\'s <data-dir>/local-agent is moved there, logged once', async () => {
    await mkdir(join(dataDir, 'local-agent'));
    await writeFile(join(dataDir, 'local-agent', 'node-credential.json'), '{}');
    const { logger, lines } = recordingLogger();
    await moveFormerLocalAgentDir(dataDir, logger);
    await moveFormerLocalAgentDir(dataDir, logger);
    expect(await readFile(join(base, 'data-local-agent', 'node-credential.json'), 'utf8')).to.equal('{}');
    await stat(join(dataDir, 'local-agent')).then(() => expect.fail('the old dir is still there'), () => undefined);
    expect(lines.map((l) => l.event)).to.deep.equal(['local_agent_dir_moved']);
  });

  it('when both exist the new one is kept and the old one named in a warning', async () => {
    await mkdir(join(dataDir, 'local-agent'));
    await mkdir(join(base, 'data-local-agent'));
    await writeFile(join(base, 'data-local-agent', 'mine'), 'new');
    const { logger, lines } = recordingLogger();
    await moveFormerLocalAgentDir(dataDir, logger);
    expect(await readFile(join(base, 'data-local-agent', 'mine'), 'utf8')).to.equal('new');
    expect((await stat(join(dataDir, 'local-agent'))).isDirectory()).to.equal(true);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ event: 'local_agent_dir_conflict', former: join(dataDir, 'local-agent'), level: 40 });
    expect(String(lines[0].msg)).to.include(join(dataDir, 'local-agent'));
  });

  it('nothing to move: nothing logged', async () => {
    const { logger, lines } = recordingLogger();
    await moveFormerLocalAgentDir(dataDir, logger);
    expect(lines).to.deep.equal([]);
  });
});

describe('a private data dir', () => {
  let base: string;
  beforeEach(async () => (base = await mkdtemp(join(tmpdir(), 'cairn-private-dir-'))));
  afterEach(() => rm(base, { recursive: true, force: true }));
  const modeOf = async (dir: string) => (await stat(dir)).mode & 0o777;

  it('is created 0700', async () => {
    expect(await ensurePrivateDir(join(base, 'a', 'b'))).to.equal(undefined);
    expect(await modeOf(join(base, 'a', 'b'))).to.equal(0o700);
  });

  it('an existing wider one is narrowed to 0700 and its old mode returned, once', async () => {
    const dir = join(base, 'wide');
    await mkdir(dir, { mode: 0o755 });
    expect(await ensurePrivateDir(dir)).to.equal(0o755);
    expect(await modeOf(dir)).to.equal(0o700);
    expect(await ensurePrivateDir(dir)).to.equal(undefined);
  });
});
