import { expect } from 'chai';
import { shownRuntime } from '../../src/web/src/pages/servers/shown-runtime.js';

describe('web: the runtime state shown for a server', () => {
  it('is SLEEPING while the server sleeps (the API says STOPPED and sleeping), the API\'s value otherwise', () => {
    expect(shownRuntime({ runtimeState: 'STOPPED', sleeping: true })).to.equal('SLEEPING');
    expect(shownRuntime({ runtimeState: 'STOPPED' })).to.equal('STOPPED');
    expect(shownRuntime({})).to.equal(undefined);
  });
});
