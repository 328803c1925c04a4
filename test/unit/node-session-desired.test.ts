import { expect } from 'chai';
import { NodeSession, type AgentStream } from '../../src/controller/link/node-session.js';
import type { ControllerMessage, DesiredServer } from '../../src/shared/link/messages.js';
import { systemClock } from '../../src/shared/clock.js';

const server = (serverId: string): DesiredServer => ({
  serverId, generation: 3, software: { template: 'simcraft', version: '1.21.4', build: '' }, resources: { cpuMillis: 100, memoryBytes: 2 ** 26, diskBytes: 0 },
  gamePort: 30000, desiredState: 'DESIRED_RUNTIME_STATE_STOPPED', restartPolicy: { maxRestarts: 0, windowSeconds: 60 },
  acknowledgedConditionIds: [], inNetwork: false, restartNonce: 0, templateJson: '', plugins: [], network: null, egressAllow: [], sleep: null, wakeNonce: 0,
});

describe('Node session: desired-state revisions on one stream', () => {
  const open = () => {
    const written: ControllerMessage[] = [];
    const call = { write: (message: ControllerMessage) => written.push(message) > 0 } as unknown as AgentStream;
    return { session: new NodeSession('s1', 'n1', '127.0.0.1', call, systemClock), written };
  };
  const revisions = (written: ControllerMessage[]) => written.map((m) => (m.kind === 'desiredState' ? m.desiredState.revision : m.kind === 'desiredServerChange' ? m.desiredServerChange.revision : -1));

  it('sends no change before the stream\'s first full state (that full state holds it)', () => {
    const { session, written } = open();
    expect(session.sendDesiredChange('a', server('a'))).to.equal(false);
    expect(written).to.deep.equal([]);
  });

  it('numbers full states and changes in one sequence, a removal by its id', () => {
    const { session, written } = open();
    session.sendDesiredState([server('a'), server('b')]);
    session.sendDesiredChange('a', server('a'));
    session.sendDesiredChange('b', null);
    session.sendDesiredState([server('a')]);
    expect(revisions(written)).to.deep.equal([1, 2, 3, 4]);
    const removal = written[2];
    expect(removal.kind === 'desiredServerChange' && removal.desiredServerChange).to.deep.equal({ revision: 3, server: null, removedServerId: 'b', leaseTerm: 0 });
  });
});
