import { expect } from 'chai';
import { UsageError } from '../../src/cli/errors.js';
import { tasksFromFlags } from '../../src/cli/schedule-tasks.js';

describe('cairn create schedule: the tasks from its flags', () => {
  it('takes the commands as given, then the backup, then the restart with its warnings', () => {
    expect(tasksFromFlags({ restart: true, warn: '60, 30,10', backupDestinationId: 'd', command: ['save-all', 'say a, b'] })).to.deep.equal([
      { action: 'command', command: 'save-all' },
      { action: 'command', command: 'say a, b' },
      { action: 'backup', destinationId: 'd' },
      { action: 'restart', warnSeconds: [60, 30, 10] },
    ]);
    expect(tasksFromFlags({ restart: true })).to.deep.equal([{ action: 'restart' }]);
  });

  it('refuses, as a usage error, no task at all, --warn without --restart and warnings that are not whole seconds', () => {
    expect(() => tasksFromFlags({})).to.throw(UsageError, /--command LINE, --backup DESTINATION or --restart/);
    expect(() => tasksFromFlags({ command: ['x'], warn: '60' })).to.throw(UsageError, /--warn needs --restart/);
    for (const warn of ['60,soon', '1.5', '', '60,,30']) expect(() => tasksFromFlags({ restart: true, warn }), warn).to.throw(UsageError, /whole seconds/);
  });
});
