import { expect } from 'chai';
import { orderTemplates, versionsWarning } from '../../src/web/src/pages/servers/template-choice.js';

const simcraft = { id: 'simcraft', versions: ['1.21.4'] };
const online = [
  { id: 'folia', order: 30, versions: ['1.21.4'], versionsFrom: 'UPSTREAM' as const, syncedAt: '2025-01-01T00:00:00Z' },
  { id: 'paper', order: 10, versions: ['1.21.10'], versionsFrom: 'UPSTREAM' as const, syncedAt: '2025-01-01T00:00:00Z' },
  simcraft,
  { id: 'vanilla', order: 20, versions: ['1.21.10'], versionsFrom: 'UPSTREAM' as const, syncedAt: '2025-01-01T00:00:00Z' },
];
const offline = [
  { id: 'folia', order: 30, versions: [], versionsFrom: 'SNAPSHOT' as const, syncError: 'could not look up fill.papermc.io' },
  { id: 'paper', order: 10, versions: ['1.21.4'], versionsFrom: 'SNAPSHOT' as const, syncError: 'could not look up fill.papermc.io' },
  simcraft,
  { id: 'vanilla', order: 20, versions: ['1.21.4'], versionsFrom: 'SNAPSHOT' as const, syncError: 'could not look up piston-meta.mojang.com' },
];

describe('web: which template the new-server form offers first', () => {
  it('online: Paper first, then by the templates\' order; offline: simcraft, then the shipped lists, then the empty one', () => {
    expect(orderTemplates(online).map((t) => t.id)).to.deep.equal(['paper', 'vanilla', 'folia', 'simcraft']);
    expect(orderTemplates(offline).map((t) => t.id)).to.deep.equal(['simcraft', 'paper', 'vanilla', 'folia']);
  });

  it('warns about a failed sync and says why a list is empty; nothing for a list that works', () => {
    expect(versionsWarning(online[1])).to.equal(undefined);
    expect(versionsWarning(simcraft)).to.equal(undefined);
    expect(versionsWarning(offline[1])).to.match(/^The last version sync failed: could not look up fill\.papermc\.io\. These versions come from the list shipped with Cairn/);
    expect(versionsWarning(offline[0])).to.match(/^No versions to offer: no sync has succeeded yet and the list shipped with Cairn has none for this template\. The last version sync failed/);
  });
});
