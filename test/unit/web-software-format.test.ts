import { expect } from 'chai';
import { workflowText } from '../../src/web/src/pages/backups/backup-format.js';
import { buildLabel, downloadsText, loaderText } from '../../src/web/src/pages/servers/software/loaders.js';
import { newerSoftware, startedUpdate, updateOutcome, versionLabel } from '../../src/web/src/pages/servers/software/software-format.js';

const versions = [
  { version: '1.21.5', java: { minimum: 21 }, latestBuild: '12' },
  { version: '1.21.4', java: { minimum: 21 }, latestBuild: '233' },
  { version: '1.16.5', java: { minimum: 8 } },
];

const condition = (id: string, message: string) => ({ id, reason: 'UPDATE_FAILED', message, source: 'CONTROLLER' as const, since: '2026-01-01T00:00:00Z' });

/** A READY server's fields updateOutcome reads. */
const server = (version: string, generation: number, failures: ReturnType<typeof condition>[] = []) => ({
  phase: 'READY' as const, generation, software: { template: 'paper', version, build: '233' },
  conditions: failures, status: { conditions: [] },
});

describe('web UI: the pure helpers behind the Software card', () => {
  it('labels a version with its Java need, when it has one', () => {
    expect(versionLabel(versions[0])).to.equal('1.21.5 (Java 21)');
    expect(versionLabel({ version: '1.21.4' })).to.equal('1.21.4');
  });

  it('labels a modpack version by its name, game and loader; a loader template\'s builds are its loader versions', () => {
    expect(versionLabel({ version: 'fab-pack:VerNew02', name: '2.0.0', game: '1.21.4', loader: { template: 'neoforge', build: '21.4.1' } })).to.equal('2.0.0 (Minecraft 1.21.4, NeoForge 21.4.1)');
    expect(versionLabel({ version: 'fab-pack:VerOld01', name: '1.0.0' })).to.equal('1.0.0');
    expect([buildLabel('fabric'), buildLabel('forge'), buildLabel('paper'), buildLabel(undefined)]).to.deep.equal(['Loader version', 'Loader version', 'Build', 'Build']);
    expect(loaderText({ template: 'quilt', build: '0.1' }), 'a loader the UI has no name for keeps its id').to.equal('quilt 0.1');
    expect([downloadsText(9), downloadsText(12_345), downloadsText(2_000_000)]).to.deep.equal(['9', '12.3k', '2M']);
    expect(newerSoftware([{ version: 'p:b', name: '2.0.0' }, { version: 'p:a', name: '1.0.0' }], { template: 'modrinth', version: 'p:a' })).to.equal('Version 2.0.0 is available.');
  });

  it('says a newer version is available when one is listed before the current one, else a newer build of the same version', () => {
    expect(newerSoftware(versions, { template: 'paper', version: '1.21.4', build: '232' })).to.equal('Version 1.21.5 is available.');
    expect(newerSoftware(versions, { template: 'paper', version: '1.16.5' })).to.equal('Version 1.21.5 is available.');
    expect(newerSoftware(versions, { template: 'paper', version: '1.21.5', build: '11' })).to.equal('Build 12 of 1.21.5 is available.');
    expect(newerSoftware(versions, { template: 'paper', version: '1.21.5', build: '12' })).to.equal(undefined);
    expect(newerSoftware(versions, { template: 'paper', version: '9.9.9', build: '1' }), 'a version no longer listed').to.equal(undefined);
    expect(newerSoftware([], { template: 'paper', version: '1.21.4' })).to.equal(undefined);
  });

  it('tells an update\'s end: a new UPDATE_FAILED condition is its failure; the target version on a new generation its success', () => {
    const old = condition('c1', 'an earlier failure');
    const started = startedUpdate(server('1.21.4', 3, [old]), '1.21.5');
    expect(started).to.deep.equal({ version: '1.21.5', generation: 3, failuresBefore: ['c1'] });
    expect(updateOutcome({ ...server('1.21.4', 3, [old]), phase: 'UPDATING' }, started), 'still running').to.equal(undefined);
    expect(updateOutcome(server('1.21.4', 3, [old]), started), 'an answer from before the update').to.equal(undefined);
    expect(updateOutcome(server('1.21.5', 4, [old]), started)).to.deep.equal({ ok: true, text: 'Updated to 1.21.5 (build 233).' });
    expect(updateOutcome(server('1.21.4', 4, [old, condition('c2', 'failed while installing')]), started))
      .to.deep.equal({ ok: false, text: 'The update failed: failed while installing' });
  });

  it('names the UPDATE workflow in the progress line', () => {
    expect(workflowText({ kind: 'UPDATE', step: 'installing the new software' })).to.equal('Updating: installing the new software');
  });
});
