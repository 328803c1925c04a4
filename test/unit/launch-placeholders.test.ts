import { expect } from 'chai';
import { placeholderValues } from '../../src/agent/reconciler/launch.js';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { TemplateCatalog } from '../../src/controller/adapters/software/template-catalog.js';
import { resolveRunCommand, type Template } from '../../src/shared/templates.js';

const target = (cpuMillis: number): ServerTarget => ({
  serverId: '0190a1b2-0000-7000-8000-000000000001', generation: 1, state: 'RUNNING', software: { template: 'paper', version: '1.21.4' },
  resources: { cpuMillis, memoryBytes: 512 * 2 ** 20 }, gamePort: 25570, inNetwork: false, restartPolicy: { maxRestarts: 0, windowSeconds: 60 },
  acknowledgedConditions: [], restartNonce: 0, wakeNonce: 0,
});
const host = { javas: [{ name: 'java' as const, version: '21.0.5', major: 21, path: '/usr/lib/jvm/jdk-21/bin/java' }], bindAddress: '127.0.0.1' };

describe('launch placeholders: {cpus} is the reservation in whole processors', () => {
  let templates: TemplateCatalog;
  before(async () => {
    templates = await TemplateCatalog.load();
  });
  const values = (template: Template, cpuMillis: number) => placeholderValues(template, target(cpuMillis), { root: '/srv/s1/root', software: '/srv/s1/root/.cairn' }, host);

  it('rounds cpuMillis up to whole processors, at least 1', () => {
    const paper = templates.get('paper')!;
    const cpus = [1, 100, 500, 999, 1000, 1001, 1500, 2000, 2500, 16_000].map((m) => values(paper, m).cpus);
    expect(cpus).to.deep.equal(['1', '1', '1', '1', '1', '2', '2', '2', '3', '16']);
  });

  it('every Java template caps the JVM at it with -XX:ActiveProcessorCount (the box hides the cgroup limits from Java)', () => {
    for (const id of ['paper', 'folia', 'vanilla', 'velocity', 'fabric']) {
      const template = templates.get(id)!;
      const command = resolveRunCommand(template, values(template, 1500));
      expect(command.command, id).to.equal('/usr/lib/jvm/jdk-21/bin/java');
      expect(command.args, id).to.include('-XX:ActiveProcessorCount=2');
      // A JVM option: before -jar, or the game would get it as its own argument.
      expect(command.args.indexOf('-XX:ActiveProcessorCount=2'), id).to.be.below(command.args.indexOf('-jar'));
    }
  });
});
