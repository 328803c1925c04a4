import { expect } from 'chai';
import { initialStatus } from '../../src/controller/actors/fleet.js';
import { noReservation, nodeView } from '../../src/controller/services/nodes/node-view.js';
import type { NodeDoc } from '../../src/controller/store/records.js';

/** A Node whose last holder wrote it HEALTHY, as another Controller reads it from the shared store. */
const stored = (extra: Partial<NodeDoc> = {}): NodeDoc => ({
  _id: 'n1', name: 'n1', nameKey: 'n1', address: '', adminState: 'ENABLED', conditions: [],
  status: { ...initialStatus(), connectionState: 'HEALTHY' }, createdAt: '2026-12-01T00:00:00.000Z', updatedAt: '2026-12-01T00:00:00.000Z',
  enrolledAt: '2026-12-01T00:00:00.000Z', ...extra,
});

describe('a Node driven elsewhere, as a Controller without its lease shows it', () => {
  it('is as its live holder wrote it', () => {
    const view = nodeView(stored(), undefined, noReservation(), 'controller-b');
    expect(view.status.connectionState).to.equal('HEALTHY');
    expect(view.acceptsPlacements).to.equal(true);
  });

  it('is UNREACHABLE, and takes no placements, when no live Controller holds it (its holder died writing HEALTHY)', () => {
    const view = nodeView(stored(), undefined, noReservation(), undefined);
    expect(view.status.connectionState).to.equal('UNREACHABLE');
    expect(view.acceptsPlacements).to.equal(false);
    expect(view.status).not.to.have.property('controllerId');
  });

  it('is UNREACHABLE once enrolled, before any Controller first holds it; AWAITING_ENROLLMENT before', () => {
    const enrolled = stored({ status: initialStatus() });
    expect(nodeView(enrolled, undefined, noReservation()).status.connectionState).to.equal('UNREACHABLE');
    const { enrolledAt: _, ...notYet } = enrolled;
    expect(nodeView(notYet, undefined, noReservation()).status.connectionState).to.equal('AWAITING_ENROLLMENT');
  });
});
