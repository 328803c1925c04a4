import { expect } from 'chai';
import { readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { recordFailureCondition } from '../../src/agent/reconciler/record-failure.js';
import { stateDirFor, stateFiles } from '../../src/agent/runtime/state-dir.js';
import { running, supervisorRig } from '../support/supervisor-rig.js';

/**
 * A full disk under a stopping game: every write of the exit's record fails with ENOSPC. Each
 * record's temporary file is made a link to /dev/full, whose writes always fail so, which makes the
 * full disk exact and needs no mount.
 */
describe('supervisor: a game\'s exit that cannot be recorded (ENOSPC)', function () {
  const rig = supervisorRig();

  it('the stop still ends with the exit, heard once; the failed record is told with its path; no .tmp file is left', async () => {
    const { runtime, exits } = await rig.newRuntime();
    const failures: { serverId: string; path: string; code?: string }[] = [];
    runtime.onRecordFailed((serverId, path, error) => failures.push({ serverId, path, code: (error as NodeJS.ErrnoException).code }));
    const { shimPid } = running(await runtime.start('game', rig.spec()));
    const stateDir = stateDirFor(join(rig.root, 'd1'), 'game');
    await symlink('/dev/full', join(stateDir, `${stateFiles.exit}.${shimPid}.tmp`));
    await symlink('/dev/full', join(stateDir, `${stateFiles.reportedExit}.${process.pid}.tmp`));

    const exit = await runtime.stop('game', { timeoutMs: 2000 });
    expect(exit.cause).to.equal('stopped');
    expect(exits.map((e) => e.exit)).to.deep.equal([exit]);
    expect(failures).to.deep.equal([{ serverId: 'game', path: join(stateDir, stateFiles.reportedExit), code: 'ENOSPC' }]);
    // The shim's own attempt failed first, and said so in its log.
    expect(await readFile(join(stateDir, stateFiles.log), 'utf8')).to.include('exit_record_failed');
    expect((await readdir(stateDir)).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);
    // Asked again (the reconciler asks before every stop and start), the runtime answers instead of failing.
    expect((await runtime.status('game')).state).to.be.oneOf(['exited', 'absent']);
  });

  it('the server\'s condition names the step, the file and its file system (mount point and type, what is free)', async () => {
    const path = join(rig.root, 'last-exit.json');
    const condition = await recordFailureCondition('s1', 'Stopping the game', path, Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }), new Date(0));
    expect(condition).to.include({ id: 's1:state-write', reason: 'NO_SPACE', since: '1970-01-01T00:00:00.000Z' });
    expect(condition.message).to.match(new RegExp(`^Stopping the game: the game's exit could not be recorded in ${path}: the file system mounted at /\\S* \\(\\w+\\) is full \\(ENOSPC, [0-9.]+ MiB free of [0-9.]+ MiB\\)\\.`));
  });
});
