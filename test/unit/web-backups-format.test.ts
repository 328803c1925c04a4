import { expect } from 'chai';
import { formatTime } from '../../src/web/src/format/units.js';
import {
  backupPollInterval, backupStateClass, backupStatusText, checkSchedule, defaultDestinationId, describeDestination, formatSoftware, isUnfinished, livePollMs,
  migrationTargets, restoreStatusText, workflowText,
} from '../../src/web/src/pages/backups/backup-format.js';

describe('web UI: the pure helpers behind the backups, restore and migration views', () => {
  it('reads a backups list again every 2 s only while one of its backups is unfinished, or more are coming', () => {
    expect(livePollMs).to.equal(2_000);
    expect(isUnfinished({ state: 'PENDING' })).to.equal(true);
    expect(isUnfinished({ state: 'RUNNING' })).to.equal(true);
    expect(isUnfinished({ state: 'SUCCEEDED' })).to.equal(false);
    expect(isUnfinished({ state: 'FAILED' })).to.equal(false);
    expect(backupPollInterval(undefined)).to.equal(false);
    expect(backupPollInterval([])).to.equal(false);
    expect(backupPollInterval([{ items: [{ state: 'SUCCEEDED' }] }, { items: [{ state: 'FAILED' }] }])).to.equal(false);
    expect(backupPollInterval([{ items: [{ state: 'SUCCEEDED' }] }, { items: [{ state: 'RUNNING' }] }])).to.equal(2_000);
    expect(backupPollInterval([{ items: [{ state: 'PENDING' }] }])).to.equal(2_000);
    expect(backupPollInterval([{ items: [] }], true)).to.equal(2_000);
  });

  it('colours states by meaning and keeps the enum value as the text', () => {
    expect(backupStateClass('SUCCEEDED')).to.equal('state good');
    expect(backupStateClass('FAILED')).to.equal('state bad');
    expect(backupStateClass('PENDING')).to.equal('state busy');
    expect(backupStateClass('RUNNING')).to.equal('state busy');
  });

  it('shows the software a backup recorded, with its build when there is one', () => {
    expect(formatSoftware({ template: 'paper', version: '1.21.4', build: '130' })).to.equal('paper 1.21.4 (build 130)');
    expect(formatSoftware({ template: 'simcraft', version: '1.21.4' })).to.equal('simcraft 1.21.4');
  });

  it('says where a destination keeps backups, and starts forms on the Controller\'s default destination', () => {
    expect(describeDestination({ kind: 'CONTROLLER' })).to.include('any Node');
    expect(describeDestination({ kind: 'NODE_DIRECTORY', path: '/srv/backups' })).to.include('/srv/backups').and.include('that Node');
    expect(describeDestination({ kind: 'S3', bucket: 'cairn-backups' })).to.include('cairn-backups').and.include('any Node');
    const nas = { id: 'a', name: 'nas' };
    const controller = { id: 'b', name: 'controller' };
    expect(defaultDestinationId([nas, controller])).to.equal('b');
    expect(defaultDestinationId([nas])).to.equal('a');
    expect(defaultDestinationId([])).to.equal('');
    expect(defaultDestinationId(undefined)).to.equal('');
  });

  it('checks a schedule before sending: five cron fields and a whole retain from 1 to 100', () => {
    expect(checkSchedule('0 4 * * *', '7')).to.deep.equal({ cron: undefined, retain: undefined, retainValue: 7 });
    expect(checkSchedule('  */15  *  * * 1-5 ', ' 100 ')).to.deep.equal({ cron: undefined, retain: undefined, retainValue: 100 });
    expect(checkSchedule('0 4 * * *', '1').retainValue).to.equal(1);
    for (const cron of ['', '0 4 * *', '0 0 4 * * *', '@daily']) expect(checkSchedule(cron, '7').cron, cron).to.be.a('string');
    for (const retain of ['', '0', '101', '1.5', '-3', 'ten', '1e2']) {
      const check = checkSchedule('0 4 * * *', retain);
      expect(check.retain, retain).to.equal('Enter a whole number from 1 to 100.');
      expect(check.retainValue, retain).to.equal(undefined);
    }
  });

  it('words a running workflow as its verb and step, and offers every other Node that is not revoked as a migration target', () => {
    expect(workflowText({ kind: 'MIGRATE', step: 'copying' })).to.equal('Migrating: copying');
    expect(workflowText({ kind: 'RESTORE', step: 'staging' })).to.equal('Restoring: staging');
    expect(workflowText({ kind: 'PROVISION', step: 'installing' })).to.equal('PROVISION: installing');
    const nodes = [
      { id: 'own', adminState: 'ENABLED' as const },
      { id: 'other', adminState: 'ENABLED' as const },
      { id: 'off', adminState: 'DISABLED' as const },
      { id: 'gone', adminState: 'REVOKED' as const },
    ];
    expect(migrationTargets(nodes, { nodeId: 'own' }).map((n) => n.id)).to.deep.equal(['other', 'off']);
    expect(migrationTargets(undefined, { nodeId: 'own' })).to.deep.equal([]);
  });

  it('words a started backup and a restore from their current state, so the line moves with them', () => {
    expect(backupStatusText({ state: 'PENDING' })).to.equal('Backup started: PENDING, waiting for its turn.');
    expect(backupStatusText({ state: 'RUNNING' })).to.equal('Backing up: RUNNING.');
    expect(backupStatusText({ state: 'SUCCEEDED' })).to.equal('Backup done: SUCCEEDED.');
    expect(backupStatusText({ state: 'FAILED', error: 'the Node went away' })).to.equal('Backup FAILED: the Node went away.');
    const server = { name: 'lobby', conditions: [] };
    expect(restoreStatusText({ ...server, phase: 'RESTORING', workflow: { kind: 'RESTORE', step: 'staging' } as never })).to.equal('Restoring lobby: staging.');
    expect(restoreStatusText({ ...server, phase: 'READY' })).to.equal('lobby is restored: its phase is READY.');
    const failed = { id: 'c', source: 'CONTROLLER' as const, reason: 'RESTORE_FAILED', message: 'a file did not match its sha256.', since: '2026-01-01T00:00:00Z' };
    expect(restoreStatusText({ ...server, phase: 'READY', conditions: [failed] })).to.equal('Restoring lobby failed: a file did not match its sha256.');
  });

  it('tells apart backups started within the same minute: their times show seconds', () => {
    const preRestore = formatTime('2026-11-27T19:15:03Z', { seconds: true });
    const manual = formatTime('2026-11-27T19:15:41Z', { seconds: true });
    expect(preRestore).to.not.equal(manual);
    expect(preRestore).to.match(/:03\b/);
  });
});
