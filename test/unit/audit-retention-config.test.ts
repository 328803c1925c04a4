import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseControllerConfig } from '../../src/controller/program/config.js';

describe('--audit-retention-days', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-retention-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('defaults to 365 days; the flag, CAIRN_AUDIT_RETENTION_DAYS and the config file key set it, in that precedence', async () => {
    expect(parseControllerConfig([], {}).auditRetentionDays).to.equal(365);
    const file = join(dir, 'controller.yaml');
    await writeFile(file, 'audit-retention-days: 30\n');
    expect(parseControllerConfig(['--config', file], {}).auditRetentionDays).to.equal(30);
    expect(parseControllerConfig(['--config', file], { CAIRN_AUDIT_RETENTION_DAYS: '0' }).auditRetentionDays).to.equal(0);
    expect(parseControllerConfig(['--config', file, '--audit-retention-days', '90'], { CAIRN_AUDIT_RETENTION_DAYS: '0' }).auditRetentionDays).to.equal(90);
  });

  it('refuses what is not a whole number of days 0..36500, naming the flag', () => {
    for (const bad of ['-1', '1.5', 'forever', '36501']) {
      expect(() => parseControllerConfig([], { CAIRN_AUDIT_RETENTION_DAYS: bad }), bad).to.throw(`--audit-retention-days must be a whole number of days 0..36500, got "${bad}"`);
    }
  });
});
