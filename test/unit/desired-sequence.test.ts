import { expect } from 'chai';
import { DesiredSequence } from '../../src/agent/link/desired-sequence.js';
import type { DesiredServer } from '../../src/shared/link/messages.js';

const server = (serverId: string, generation = 1): DesiredServer => ({
  serverId, generation, software: { template: 'simcraft', version: '1.21.4', build: '' }, resources: { cpuMillis: 100, memoryBytes: 2 ** 26, diskBytes: 0 },
  gamePort: 30000, desiredState: 'DESIRED_RUNTIME_STATE_RUNNING', restartPolicy: { maxRestarts: 0, windowSeconds: 60 },
  acknowledgedConditionIds: [], inNetwork: false, restartNonce: 0, sleep: null, wakeNonce: 0, templateJson: '', plugins: [], network: null, egressAllow: [],
});
const change = (revision: number, s: DesiredServer) => ({ revision, server: s, removedServerId: '', leaseTerm: 0 });
const removal = (revision: number, serverId: string) => ({ revision, server: null, removedServerId: serverId, leaseTerm: 0 });
const generations = (seq: DesiredSequence) => Object.fromEntries((seq.state?.servers ?? []).map((s) => [s.serverId, s.generation]));

describe('desired-state sequence on the Agent: full state, changes in order, gaps', () => {
  it('applies changes that follow the full state one revision at a time', () => {
    const seq = new DesiredSequence();
    seq.full({ servers: [server('a'), server('b')], revision: 1, leaseTerm: 0 });
    expect(seq.change(change(2, server('a', 2)))).to.deep.include({ kind: 'change', serverId: 'a' });
    expect(seq.change(change(3, server('c')))).to.deep.include({ kind: 'change', serverId: 'c' });
    expect(seq.change(removal(4, 'b'))).to.deep.equal({ kind: 'change', serverId: 'b', server: null });
    expect(generations(seq)).to.deep.equal({ a: 2, c: 1 });
    expect(seq.state?.revision).to.equal(4);
  });

  it('a skipped revision is a gap: asked for once, later changes ignored until the full state', () => {
    const seq = new DesiredSequence();
    seq.full({ servers: [server('a')], revision: 1, leaseTerm: 0 });
    expect(seq.change(change(3, server('a', 3)))).to.deep.equal({ kind: 'gap', lastRevision: 1, receivedRevision: 3 });
    expect(seq.state, 'no state is trusted during a gap').to.equal(undefined);
    expect(seq.change(change(4, server('a', 4)))).to.deep.equal({ kind: 'ignored' });
    seq.full({ servers: [server('a', 4)], revision: 5, leaseTerm: 0 });
    expect(seq.change(change(6, server('a', 5)))).to.deep.include({ kind: 'change', serverId: 'a' });
    expect(generations(seq)).to.deep.equal({ a: 5 });
  });

  it('a repeated or older revision is a gap too', () => {
    const seq = new DesiredSequence();
    seq.full({ servers: [], revision: 7, leaseTerm: 0 });
    expect(seq.change(change(7, server('a')))).to.include({ kind: 'gap' });
  });

  it('a change before any full state is a gap (the Agent restarted or the stream is new)', () => {
    const seq = new DesiredSequence();
    expect(seq.change(change(1, server('a')))).to.deep.equal({ kind: 'gap', lastRevision: 0, receivedRevision: 1 });
  });

  it('a new stream starts over from its own full state', () => {
    const seq = new DesiredSequence();
    seq.full({ servers: [server('a')], revision: 9, leaseTerm: 0 });
    seq.reset();
    expect(seq.change(change(10, server('a', 2)))).to.include({ kind: 'gap' });
    seq.full({ servers: [server('a', 2)], revision: 1, leaseTerm: 0 });
    expect(seq.change(change(2, server('a', 3)))).to.include({ kind: 'change' });
  });
});
