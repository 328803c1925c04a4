import { expect } from 'chai';
import type { PluginInstallation, ServerItem } from '../../src/cli/api-types.js';
import { diffLines, planServer } from '../../src/cli/apply-plan.js';
import { creationGaps, parseManifest, type DesiredServer } from '../../src/cli/manifest.js';

const Mi = 2 ** 20;

const existing = (over: Partial<ServerItem> = {}): ServerItem => ({
  id: 's1', name: 'lobby', teamId: 't1', kind: 'GAME_SERVER', inNetwork: false, desiredState: 'STOPPED', generation: 1,
  phase: 'READY', convergence: 'CONVERGED', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 500, memoryBytes: 512 * Mi }, conditionCount: 0, ...over,
});

const desired = (over: Partial<DesiredServer> = {}): DesiredServer => ({
  name: 'lobby', team: 'Survival', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: 512 * Mi }, ...over,
});

describe('cairn CLI: apply files and their diff', () => {
  it('reads a YAML list with Kubernetes quantities; scalars of properties become text', () => {
    const [s] = parseManifest(`
- kind: Server
  name: lobby
  team: Survival
  software: {template: simcraft, version: "1.21.4"}
  resources: {cpu: 500m, memory: 512Mi}
  desiredState: running
  properties: {max-players: 30, pvp: false, motd: Hi}
  plugins: [luckperms, {id: worldedit, version: 7.3}]
`);
    expect(s).to.deep.equal({
      name: 'lobby', team: 'Survival', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: 512 * Mi },
      desiredState: 'RUNNING', properties: { 'max-players': '30', pvp: 'false', motd: 'Hi' },
      plugins: [{ pluginId: 'luckperms' }, { pluginId: 'worldedit', version: '7.3' }],
    });
  });

  it('reads JSON, {items}, one object, several YAML documents, and the API\'s exact resource fields', () => {
    const one = { kind: 'Server', name: 'a', team: 't', software: { template: 'simcraft', version: '1' }, resources: { cpuMillis: 250, memoryBytes: 1024 } };
    expect(parseManifest(JSON.stringify([one]))[0].resources).to.deep.equal({ cpuMillis: 250, memoryBytes: 1024 });
    expect(parseManifest(JSON.stringify({ items: [one] }))).to.have.length(1);
    expect(parseManifest(JSON.stringify(one))).to.have.length(1);
    expect(parseManifest(`${JSON.stringify(one)}\n---\n${JSON.stringify({ ...one, name: 'b' })}`).map((s) => s.name)).to.deep.equal(['a', 'b']);
  });

  it('refuses what it cannot apply, naming the field', () => {
    const base = 'kind: Server\nname: a\nteam: t\nsoftware: {template: simcraft, version: "1"}\n';
    expect(() => parseManifest(`${base}resources: 1`)).to.throw(/item 1\.resources: a map/);
    expect(() => parseManifest(`${base}resources: {cpu: lots, memory: 1Gi}`)).to.throw(/cpu "lots" is not a quantity/);
    expect(() => parseManifest('kind: Pod\nname: a')).to.throw(/item 1\.kind: must be Server/);
    expect(() => parseManifest(`${base}resources: {cpu: 1, memory: 1Gi}\ndesiredState: PAUSED`)).to.throw(/desiredState: RUNNING or STOPPED/);
    expect(() => parseManifest(`${base}resources: {cpu: 1, memory: 1Gi}\nreplicas: 3`)).to.throw(/unknown field replicas/);
    expect(() => parseManifest(`${base}resources: {cpu: 1, memory: 1Gi}\nproperties: {motd: [a]}`)).to.throw(/properties\.motd: a single value/);
    expect(() => parseManifest(`- ${base.replace(/\n/g, '\n  ')}resources: {cpu: 1, memory: 1Gi}\n- ${base.replace(/\n/g, '\n  ')}resources: {cpu: 1, memory: 1Gi}`)).to.throw(/appears twice/);
    expect(() => parseManifest('{not yaml: [')).to.throw(/neither YAML nor JSON/);
    expect(() => parseManifest('')).to.throw(/names no server/);
  });

  it('software and resources may be left out, or only one resource named: what creating a server needs is said by name', () => {
    const [partial] = parseManifest('kind: Server\nname: a\nteam: t\nresources: {memory: 1Gi}\n');
    expect(partial).to.deep.equal({ name: 'a', team: 't', resources: { memoryBytes: 2 ** 30 } });
    expect(creationGaps(partial)).to.deep.equal(['software (template and version)', 'resources.cpu']);
    expect(creationGaps(desired())).to.deep.equal([]);
  });

  it('a new server: created, with every field it sets shown as added, started last when RUNNING', () => {
    const plan = planServer(desired({ desiredState: 'RUNNING', properties: { motd: 'Hi' } }), undefined, [{ pluginId: 'sample:luckperms' }]);
    expect(plan.action).to.equal('created');
    expect(plan.power).to.equal('start');
    expect(plan.install).to.deep.equal([{ pluginId: 'sample:luckperms' }]);
    expect(diffLines(plan.changes)).to.deep.equal([
      '  + software: simcraft 1.21.4', '  + resources: cpu 500m, memory 512Mi', '  + properties.motd: Hi', '  + plugins.sample:luckperms: newest compatible', '  + desiredState: RUNNING',
    ]);
  });

  it('the same server again: unchanged, no calls', () => {
    const plan = planServer(desired({ desiredState: 'STOPPED', properties: { motd: 'Hi' } }), {
      server: existing(), properties: { motd: 'Hi', 'max-players': '20' },
      plugins: [{ id: 'i1', pluginId: 'luckperms', version: '5.4', catalogVersionId: 'v54' }] as PluginInstallation[],
    }, [{ pluginId: 'luckperms', version: { id: 'v54', label: '5.4' } }]);
    expect(plan).to.deep.equal({ action: 'unchanged', changes: [], patch: undefined, properties: undefined, install: [], update: [], power: undefined });
  });

  it('changes: only what differs, each shown old -> new; what the file leaves out stays', () => {
    const plan = planServer(desired({ resources: { cpuMillis: 1000, memoryBytes: 512 * Mi }, inNetwork: true, desiredState: 'RUNNING', properties: { motd: 'New', pvp: 'true' } }), {
      server: existing(), properties: { motd: 'Old', 'max-players': '20' },
      plugins: [{ id: 'i1', pluginId: 'luckperms', version: '5.4', catalogVersionId: 'v54' }] as PluginInstallation[],
    }, [{ pluginId: 'luckperms', version: { id: 'v55', label: '5.5' } }]);
    expect(plan.action).to.equal('configured');
    expect(plan.patch).to.deep.equal({ resources: { cpuMillis: 1000, memoryBytes: 512 * Mi }, inNetwork: true });
    expect(plan.properties).to.deep.equal({ motd: 'New', pvp: 'true' });
    expect(plan.update).to.deep.equal([{ installationId: 'i1', pluginId: 'luckperms', versionId: 'v55' }]);
    expect(plan.power).to.equal('start');
    expect(diffLines(plan.changes)).to.deep.equal([
      '  ~ resources.cpu: 500m -> 1', '  ~ inNetwork: false -> true', '  ~ properties.motd: Old -> New', '  + properties.pvp: true',
      '  ~ plugins.luckperms: 5.4 -> 5.5', '  ~ desiredState: STOPPED -> RUNNING',
    ]);
  });

  it('on a running server: resources and software say they restart it, the rest that it applies at the next start', () => {
    const running = existing({ desiredState: 'RUNNING', runtimeState: 'RUNNING' });
    const plan = planServer(desired({ software: { template: 'simcraft', version: '1.21.1' }, resources: { memoryBytes: Mi * 1024 }, inNetwork: true, properties: { motd: 'New' } }),
      { server: running, properties: {}, plugins: [] }, [{ pluginId: 'p' }]);
    expect(plan.patch).to.deep.equal({ resources: { cpuMillis: 500, memoryBytes: 1024 * Mi }, inNetwork: true });
    expect(diffLines(plan.changes)).to.deep.equal([
      '  ~ software.version: 1.21.4 -> 1.21.1 (will restart the running server)', '  ~ resources.memory: 512Mi -> 1Gi (will restart the running server)',
      '  ~ inNetwork: false -> true (applies at its next start)', '  + properties.motd: New (applies at its next start)', '  + plugins.p: newest compatible (applies at its next start)',
    ]);
  });

  it('fields the file leaves out are not compared: no software, no resources, only cpu', () => {
    expect(planServer({ name: 'lobby', team: 'Survival', properties: { motd: 'Hi' } }, { server: existing(), properties: { motd: 'Hi' } }).action).to.equal('unchanged');
    const plan = planServer({ name: 'lobby', team: 'Survival', resources: { cpuMillis: 250 } }, { server: existing() });
    expect(plan.patch).to.deep.equal({ resources: { cpuMillis: 250, memoryBytes: 512 * Mi } });
    expect(diffLines(plan.changes)).to.deep.equal(['  ~ resources.cpu: 500m -> 250m']);
  });

  it('a plugin matches by its catalog version; without a version, any installed one matches', () => {
    const current = { server: existing(), plugins: [{ id: 'i1', pluginId: 'p', version: '2.0', catalogVersionId: 'abc' }] as PluginInstallation[] };
    expect(planServer(desired(), current, [{ pluginId: 'p', version: { id: 'abc', label: '2.0' } }]).action).to.equal('unchanged');
    expect(planServer(desired(), current, [{ pluginId: 'p' }]).action).to.equal('unchanged');
    expect(planServer(desired(), current, [{ pluginId: 'p', version: { id: 'def', label: '2.1' } }]).update).to.deep.equal([{ installationId: 'i1', pluginId: 'p', versionId: 'def' }]);
  });

  it('plans another version of the same template as an update', () => {
    const plan = planServer(desired({ software: { template: 'simcraft', version: '1.21.1' } }), { server: existing() });
    expect(plan.action).to.equal('configured');
    expect(plan.software).to.deep.equal({ version: '1.21.1' });
    expect(diffLines(plan.changes)).to.deep.equal(['  ~ software.version: 1.21.4 -> 1.21.1']);
  });

  it('refuses another template: the API cannot change it', () => {
    expect(() => planServer(desired({ software: { template: 'paper', version: '1.21.4' } }), { server: existing() }))
        .to.throw(/the software is simcraft 1\.21\.4; the API cannot change it to paper 1\.21\.4/);
  });

  it('reads sleep as a duration or the API\'s seconds, null or false to turn it off, and refuses the rest by name', () => {
    const base = 'kind: Server\nname: a\nteam: t\n';
    expect(parseManifest(`${base}sleep: {afterEmpty: 10m}`)[0].sleep).to.deep.equal({ afterEmptySeconds: 600 });
    expect(parseManifest(`${base}sleep: {afterEmpty: 90, wakeOnJoin: false}`)[0].sleep).to.deep.equal({ afterEmptySeconds: 90, wakeOnJoin: false });
    expect(parseManifest(`${base}sleep: {afterEmptySeconds: 600, wakeOnJoin: true}`)[0].sleep).to.deep.equal({ afterEmptySeconds: 600, wakeOnJoin: true });
    expect(parseManifest(`${base}sleep: null`)[0].sleep).to.equal(null);
    expect(parseManifest(`${base}sleep: false`)[0].sleep).to.equal(null);
    expect(parseManifest(base)[0]).to.not.have.property('sleep');
    expect(() => parseManifest(`${base}sleep: 10m`)).to.throw(/item 1\.sleep: a map/);
    expect(() => parseManifest(`${base}sleep: {wakeOnJoin: true}`)).to.throw(/item 1\.sleep\.afterEmpty: required/);
    expect(() => parseManifest(`${base}sleep: {afterEmpty: 1500ms}`)).to.throw(/item 1\.sleep\.afterEmpty: whole seconds/);
    expect(() => parseManifest(`${base}sleep: {afterEmptySeconds: 1.5}`)).to.throw(/afterEmptySeconds: a whole number/);
    expect(() => parseManifest(`${base}sleep: {afterEmpty: 10m, wakeOnJoin: sometimes}`)).to.throw(/wakeOnJoin: true or false/);
    expect(() => parseManifest(`${base}sleep: {afterEmpty: 10m, pause: true}`)).to.throw(/sleep: unknown field pause/);
  });

  it('sleep: created with it, changed old -> new without a restart, off by null; a left-out wakeOnJoin is true, as the API stores it', () => {
    const created = planServer(desired({ sleep: { afterEmptySeconds: 600 } }), undefined);
    expect(diffLines(created.changes)).to.include('  + sleep: after 600s empty, wakes on join');
    const running = existing({ desiredState: 'RUNNING', runtimeState: 'RUNNING' });
    const same = planServer(desired({ sleep: { afterEmptySeconds: 600 } }), { server: running, sleep: { afterEmptySeconds: 600, wakeOnJoin: true } });
    expect(same.action).to.equal('unchanged');
    const on = planServer(desired({ sleep: { afterEmptySeconds: 300, wakeOnJoin: false } }), { server: running, sleep: null });
    expect(on.patch).to.deep.equal({ sleep: { afterEmptySeconds: 300, wakeOnJoin: false } });
    expect(diffLines(on.changes)).to.deep.equal(['  ~ sleep: off -> after 300s empty, no wake on join (cairn start wakes it)']);
    const off = planServer(desired({ sleep: null }), { server: running, sleep: { afterEmptySeconds: 600, wakeOnJoin: true } });
    expect(off.patch).to.deep.equal({ sleep: null });
    expect(diffLines(off.changes)).to.deep.equal(['  ~ sleep: after 600s empty, wakes on join -> off']);
    expect(planServer(desired({ sleep: null }), { server: running, sleep: null }).action).to.equal('unchanged');
  });
});
