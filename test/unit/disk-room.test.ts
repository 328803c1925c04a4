import { expect } from 'chai';
import { DomainError } from '../../src/controller/core/errors.js';
import { requireDiskRoom, requireRoomForFiles } from '../../src/controller/domain/disk-room.js';
import type { ServerDoc } from '../../src/controller/store/records.js';

const MiB = 2 ** 20;
const serverWith = (diskBytes: number | undefined, used: number) =>
  ({ desired: { resources: { cpuMillis: 500, memoryBytes: 512 * MiB, ...(diskBytes ? { diskBytes } : {}) } }, observed: { usage: { diskBytes: used } } }) as unknown as ServerDoc;
const codeOf = (work: () => void) => {
  try {
    work();
    return 'OK';
  } catch (e) {
    return e instanceof DomainError ? e.code : 'other';
  }
};

describe('disk limits: what the Controller refuses before it asks a Node', () => {
  it('a restore whose backup alone passes the server\'s limit is insufficient_storage; without a limit, anything goes', () => {
    expect(codeOf(() => requireRoomForFiles(serverWith(64 * MiB, 0), 65 * MiB, 'The backup'))).to.equal('insufficient_storage');
    expect(codeOf(() => requireRoomForFiles(serverWith(64 * MiB, 60 * MiB), 64 * MiB, 'The backup')), 'the files it replaces do not count').to.equal('OK');
    expect(codeOf(() => requireRoomForFiles(serverWith(undefined, 0), 10 * 1024 * MiB, 'The backup'))).to.equal('OK');
  });

  it('a plugin that takes the files past the limit is insufficient_storage', () => {
    expect(codeOf(() => requireDiskRoom(serverWith(64 * MiB, 63 * MiB), 2 * MiB))).to.equal('insufficient_storage');
    expect(codeOf(() => requireDiskRoom(serverWith(64 * MiB, 60 * MiB), 2 * MiB))).to.equal('OK');
  });
});
