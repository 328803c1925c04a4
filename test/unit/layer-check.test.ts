import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const repoFile = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** The project's own layer rules, run on a small tree (test/fixtures/layer-check) that breaks some of them on purpose. */
async function fixtureViolations(): Promise<string[]> {
  const options = await extractDepcruiseOptions(repoFile('.dependency-cruiser.js'));
  const result = await cruise(['src'], { ...options, validate: true, baseDir: repoFile('test/fixtures/layer-check') });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a result');
  return result.output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`).sort();
}

describe('layer check (dependency-cruiser with .dependency-cruiser.js)', () => {
  it('flags each wrong import in the fixture tree and nothing else', async () => {
    expect(await fixtureViolations()).to.deep.equal([
      'adapters-below-services: src/controller/adapters/plugins/feed.ts → src/controller/services/refuses.ts',
      'agent-only-shared: src/agent/leaks.ts → src/controller/wiring.ts',
      // a chain up the capability order, one step per level; the same level (backups → transfers) and a step down (workflows → placement) pass
      'capability-order-audit-placement: src/controller/services/audit/trail.ts → src/controller/services/identity/keeper.ts',
      'capability-order-backups-transfers: src/controller/services/backups/copy.ts → src/controller/services/workflows/flow.ts',
      'capability-order-files-console-plugins-network-agent-link: src/controller/services/files/shelf.ts → src/controller/services/backups/copy.ts',
      'capability-order-identity: src/controller/services/identity/keeper.ts → src/controller/services/nodes/lamp-node.ts',
      'capability-order-leases: src/controller/services/leases/term.ts → src/controller/services/audit/trail.ts',
      // adapters stand at their capability's level: software's may not use plugins'
      'capability-order-nodes-servers-software: src/controller/adapters/software/listing.ts → src/controller/adapters/plugins/feed.ts',
      'capability-order-nodes-servers-software: src/controller/services/nodes/lamp-node.ts → src/controller/services/files/shelf.ts',
      'capability-order-workflows: src/controller/services/workflows/flow.ts → src/controller/services/notifications/bell.ts',
      'cli-only-api-types: src/cli/type-leak.ts → src/controller/wiring.ts',
      'cli-only-shared: src/cli/runtime-leak.ts → src/controller/schemas/lamp.ts',
      // a file and a folder at the Controller's root that are no layer
      'controller-root-only-layers: src/controller/gadgets/lamp-gadget.ts → src/controller/domain/brightness.ts',
      'controller-root-only-layers: src/controller/loose.ts → src/controller/domain/brightness.ts',
      'domain-no-io: src/controller/domain/rule.ts → fs',
      'domain-no-io: src/controller/domain/typed-rule.ts → fs',
      'domain-not-adapters: src/controller/domain/feed-rule.ts → src/controller/adapters/plugins/feed.ts',
      'domain-types-from-schemas: src/controller/domain/feed-rule.ts → src/controller/adapters/plugins/feed.ts',
      'machines-not-io-layers: src/controller/actors/lamp-machine.ts → src/controller/store/lamps.ts',
      'metrics-read-only: src/controller/core/counted.ts → src/controller/metrics/lamp-metrics.ts',
      'no-circular: src/shared/cycle-a.ts → src/shared/cycle-b.ts',
      // closed by `import type` alone: a circle all the same
      'no-circular: src/shared/shape-a.ts → src/shared/shape-b.ts',
      'program-on-top: src/controller/http/settings-page.ts → src/controller/program/settings.ts',
      'schemas-at-the-bottom: src/controller/schemas/dimmer.ts → src/controller/domain/brightness.ts',
      'services-in-capability-folders: src/controller/services/refuses.ts → src/controller/http/problem.ts',
      'services-not-http: src/controller/services/refuses.ts → src/controller/http/problem.ts',
      'sim-only-shared: src/sim/borrowed-rule.ts → src/controller/wiring.ts',
      'web-only-web: src/web/runtime-leak.ts → src/controller/schemas/lamp.ts',
      'web-pages-not-router: src/web/src/pages/lamp-page.ts → src/web/src/app/router.ts',
      'web-session-not-router-pages: src/web/src/app/session.ts → src/web/src/pages/lamp-page.ts',
    ]);
  });
});
