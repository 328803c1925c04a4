import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuilt } from '../support/run-program.js';
import { cairnVersion } from '../../src/shared/version.js';

/** The three built programs as an operator first meets them: --help, --version, and a mistyped flag. */
describe('cairn-controller, cairn-agent and cairn: --help, --version, unknown flags', function () {
  this.timeout(60_000);
  const programs = [
    { program: 'controller', name: 'cairn-controller', flags: ['--data-dir DIR', 'CAIRN_DATA_DIR', '--http-port N', '--grpc-port N', '--host ADDR', '--mongodb-uri URI', 'MONGODB_URI', '--catalog-source', '--templates-dir DIR', '--local-agent', '--tls-cert FILE', '--tls-ca FILE', '--config FILE', 'CAIRN_CONTROLLER_CONFIG'] },
    { program: 'agent', name: 'cairn-agent', flags: ['--controller HOST:PORT', 'CAIRN_CONTROLLER', '--data-dir DIR', '--enrollment-token T', '--cpu-millis N', '--memory-bytes N', '--disk-bytes N', '--controller-ca FILE', '--controller-tls-name NAME', '--game-ports FIRST-LAST', '--config FILE', 'CAIRN_AGENT_CONFIG'] },
  ] as const;

  for (const { program, name, flags } of programs) {
    it(`${name} --help lists every flag with its variable and exits 0 without starting`, async () => {
      for (const help of ['--help', '-h']) {
        const res = await runBuilt(program, [help]);
        expect(res.code, res.stderr).to.equal(0);
        expect(res.stdout).to.match(new RegExp(`^Usage: ${name}`));
        for (const flag of flags) expect(res.stdout, flag).to.include(flag);
      }
    });

    it(`${name} --version prints the package version`, async () => {
      const res = await runBuilt(program, ['--version']);
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stdout).to.equal(`${cairnVersion}\n`);
    });

    it(`${name} names an unknown flag or a stray argument and exits 2`, async () => {
      const unknown = await runBuilt(program, ['--data-dir', '/nonexistent', '--no-such-flag']);
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.equal(`${name}: unknown option '--no-such-flag' (see --help)\n`);
      const stray = await runBuilt(program, ['extra']);
      expect(stray.code).to.equal(2);
      expect(stray.stderr).to.equal(`${name}: unexpected argument 'extra' (see --help)\n`);
    });

    it(`${name} --config with an unknown key names it and exits 2 without starting`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'cairn-config-'));
      try {
        const file = join(dir, 'cairn.yaml');
        await writeFile(file, 'data-dir: /nonexistent\nlisten-port: 80\n');
        const res = await runBuilt(program, ['--config', file]);
        expect(res.code).to.equal(2);
        expect(res.stderr).to.equal(`${name}: unknown key 'listen-port' in the config file ${file} (keys are the long flags without --, see --help)\n`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it('cairn --version and --help exit 0; an unknown flag is named and exits 2', async () => {
    expect((await runBuilt('cli', ['--version'])).stdout).to.equal(`${cairnVersion}\n`);
    expect((await runBuilt('cli', ['--help'])).code).to.equal(0);
    const res = await runBuilt('cli', ['whoami', '--no-such-flag']);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.match(/^error: unknown option '--no-such-flag'/);
  });
});
