import { expect } from 'chai';
import { installFailed, powerAllowed, startBlockedReason } from '../../src/web/src/pages/servers/power-rules.js';

const failed = (reason: string, message: string) => ({
  phase: 'FAILED' as const, desiredState: 'STOPPED' as const, runtimeState: undefined, workflow: undefined,
  conditions: [{ id: 's:workflow-failed', reason, message, source: 'CONTROLLER' as const, since: '2026-01-01T00:00:00Z' }],
});

describe('web: why Start is disabled', () => {
  it('says nothing when Start is allowed', () => {
    expect(startBlockedReason({ phase: 'READY', desiredState: 'STOPPED', conditions: [], workflow: undefined })).to.equal(undefined);
  });

  it('lets Start wake a sleeping server (desired RUNNING, its game STOPPED), and Stop turn it off', () => {
    const sleeping = { phase: 'READY' as const, desiredState: 'RUNNING' as const, runtimeState: 'STOPPED' as const };
    expect(powerAllowed(sleeping, 'start')).to.equal(true);
    expect(powerAllowed(sleeping, 'stop')).to.equal(true);
    expect(startBlockedReason({ ...sleeping, conditions: [], workflow: undefined })).to.equal(undefined);
  });

  it('names a failed install with its message and the way out', () => {
    expect(startBlockedReason(failed('INSTALL_FAILED', 'download failed'))).to.equal('The install failed: download failed. Retry the install first.');
    expect(startBlockedReason(failed('WORKFLOW_FAILED', 'disk gone'))).to.match(/^The last workflow failed: disk gone\./);
  });

  it('names the phase and its step while a workflow runs, and a server running already', () => {
    const provisioning = { phase: 'PROVISIONING' as const, desiredState: 'STOPPED' as const, conditions: [], workflow: { kind: 'PROVISION' as const, step: 'installing', startedAt: '2026-01-01T00:00:00Z' } };
    expect(startBlockedReason(provisioning)).to.equal('The software is being installed (installing); the server can start once it is READY.');
    expect(startBlockedReason({ ...provisioning, phase: 'MIGRATING', workflow: { ...provisioning.workflow, kind: 'MIGRATE', step: 'copying' } })).to.equal('The server is MIGRATING (copying); it can start once it is READY.');
    expect(startBlockedReason({ phase: 'READY', desiredState: 'RUNNING', runtimeState: 'RUNNING', conditions: [], workflow: undefined })).to.equal('The server is running already.');
  });

  it('offers Retry install for a failed install only', () => {
    expect(installFailed(failed('INSTALL_FAILED', 'download failed'))).to.equal(true);
    expect(installFailed(failed('WORKFLOW_FAILED', 'disk gone'))).to.equal(false);
    expect(installFailed({ phase: 'READY', conditions: [] })).to.equal(false);
  });
});
