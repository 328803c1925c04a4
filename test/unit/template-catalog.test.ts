import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTemplatesDir, TemplateCatalog, TemplateFileError } from '../../src/controller/adapters/software/template-catalog.js';
import { resolveManagedConfig, resolveRunCommand, type PlaceholderValues } from '../../src/shared/templates.js';

const values: PlaceholderValues = {
  java: '/usr/bin/java', node: '/usr/bin/node', serverDir: '/srv/s1', cairnDir: '/srv/s1/.cairn',
  memoryMb: '2048', heapMb: '1638', cpus: '2', port: '25570', bindAddress: '0.0.0.0', version: '1.21.4',
};

describe('template catalog', () => {
  let shipped: TemplateCatalog;
  const dirs: string[] = [];
  before(async () => {
    shipped = await TemplateCatalog.load();
  });
  after(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  /** A templates dir holding the shipped simcraft file, changed by `edit`. */
  async function dirWith(edit: (t: Record<string, unknown>) => void, fileName = 'simcraft.json'): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
    dirs.push(dir);
    const template = JSON.parse(await readFile(join(defaultTemplatesDir(), 'simcraft.json'), 'utf8')) as Record<string, unknown>;
    edit(template);
    await writeFile(join(dir, fileName), JSON.stringify(template));
    return dir;
  }

  async function refusal(dir: string): Promise<TemplateFileError> {
    try {
      await TemplateCatalog.load(dir);
    } catch (error) {
      expect(error).to.be.instanceOf(TemplateFileError);
      return error as TemplateFileError;
    }
    throw new Error('the catalog loaded');
  }

  it('loads the ten shipped templates, ordered by id', () => {
    expect(shipped.list().map((t) => t.id)).to.deep.equal(['fabric', 'folia', 'forge', 'modrinth', 'neoforge', 'paper', 'simcraft', 'simproxy', 'vanilla', 'velocity']);
  });

  it('describes the simulated templates as the contract says', () => {
    expect(shipped.get('simcraft')).to.deep.include({ kind: 'GAME_SERVER', networkMember: true, platform: 'paper', stopCommand: 'stop' });
    expect(shipped.get('simproxy')).to.deep.include({ kind: 'PROXY', networkMember: false, platform: 'velocity', stopCommand: 'end' });
    expect(new RegExp(shipped.get('simcraft')!.readyPattern).test('[10:00:00 INFO]: Done (1.234s)! For help, type "help"')).to.equal(true);
    expect(new RegExp(shipped.get('simproxy')!.readyPattern).test('[10:00:00 INFO]: Done (0.2s)! Listening on 0.0.0.0:25577')).to.equal(true);
  });

  it('answers supports() by template and version', () => {
    expect(shipped.supports('simcraft', '1.21.4')).to.equal(true);
    expect(shipped.supports('simcraft', '1.8.9')).to.equal(false);
    expect(shipped.supports('nope', '1.21.4')).to.equal(false);
    expect(shipped.get('nope')).to.equal(undefined);
  });

  it('resolves run commands and managed config with placeholders, argument by argument', () => {
    expect(resolveRunCommand(shipped.get('simcraft')!, values)).to.deep.equal({
      command: '/usr/bin/node', args: ['/srv/s1/.cairn/simcraft.mjs', '--version', '1.21.4'], env: {},
    });
    expect(resolveRunCommand(shipped.get('paper')!, values).args.slice(0, 3)).to.deep.equal(['-Xms1638M', '-Xmx1638M', '-XX:ActiveProcessorCount=2']);
    expect(resolveManagedConfig(shipped.get('simcraft')!, values)).to.include({ 'server-port': '25570', 'server-ip': '0.0.0.0' });
  });

  it('refuses a file that is not JSON, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
    dirs.push(dir);
    await writeFile(join(dir, 'broken.json'), '{"id": ');
    const error = await refusal(dir);
    expect(error.message).to.include(join(dir, 'broken.json')).and.include('not valid JSON');
  });

  it('refuses a schema violation, naming the file and the field', async () => {
    const error = await refusal(await dirWith((t) => { t.kind = 'MINIGAME'; }));
    expect(error.message).to.include('simcraft.json').and.include('kind');
    const missing = await refusal(await dirWith((t) => { delete t.readyPattern; }));
    expect(missing.message).to.include('readyPattern: is required');
    const extra = await refusal(await dirWith((t) => { t.colour = 'blue'; }));
    expect(extra.message).to.include('colour: unknown field');
    const plainHttp = await refusal(await dirWith((t) => {
      t.versions = ['1.21.4'];
      t.install = { source: 'download', file: 'server.jar', artifacts: { '1.21.4': { url: 'http://example.com/a.jar', sha256: 'a'.repeat(64) } } };
    }));
    expect(plainHttp.message).to.include('install.artifacts.1.21.4.url: must match pattern');
  });

  it('refuses rules across fields: file name, proxy membership, pattern, placeholders, artifacts', async () => {
    expect((await refusal(await dirWith(() => {}, 'other.json'))).message).to.include('must be stored as simcraft.json');
    expect((await refusal(await dirWith((t) => { t.kind = 'PROXY'; }))).message).to.include('networkMember');
    expect((await refusal(await dirWith((t) => { t.readyPattern = 'Done ('; }))).message).to.include('readyPattern');
    expect((await refusal(await dirWith((t) => { (t.run as { args: string[] }).args.push('{ram}'); }))).message).to.include('run.args.3: unknown placeholder {ram}');
    const download = (t: Record<string, unknown>) => {
      t.install = { source: 'download', file: 'server.jar', artifacts: { '1.21.4': { url: 'https://example.com/a.jar', sha256: 'a'.repeat(64) } } };
    };
    expect((await refusal(await dirWith(download))).message).to.include('no artifact for version "1.21.1"');
  });

  it('refuses network settings that do not fit the template: member settings off members, unmatched keys, a proxy\'s secret file on a game server', async () => {
    type Network = { memberConfig?: Record<string, string>; standaloneConfig?: Record<string, string>; forwardingSecret?: { file: string; format: string }; reloadCommand?: string };
    const network = (t: Record<string, unknown>) => t.network as Network;
    expect((await refusal(await dirWith((t) => { t.networkMember = false; }))).message).to.include('network.memberConfig: only for network members');
    expect((await refusal(await dirWith((t) => { network(t).standaloneConfig = {}; }))).message).to.include('network.standaloneConfig');
    expect((await refusal(await dirWith((t) => { network(t).forwardingSecret = { file: 'forwarding.secret', format: 'secret-file' }; }))).message).to.include('secret-file is for proxies');
    expect((await refusal(await dirWith((t) => { network(t).reloadCommand = 'reload'; }))).message).to.include('network.reloadCommand');
  });

  it('resolves a Fabric build to its pinned launcher with Mojang\'s jar beside it; an unpinned launcher is not installable', async () => {
    const catalog = await TemplateCatalog.load();
    const launcher = { url: 'https://meta.fabricmc.net/v2/versions/loader/1.21.4/0.16.10/1.0.1/server/jar', sha256: 'c'.repeat(64), size: 200, pinnedAt: '2026-11-29T12:00:00.000Z' };
    const vanilla = { url: 'https://piston-data.mojang.com/v1/objects/a/server.jar', sha1: 'a'.repeat(40), size: 100 };
    catalog.useListings({
      listed: () => [{
        version: '1.21.4', java: { minimum: 21 }, latestBuild: '0.16.10', installer: '1.0.1', download: vanilla,
        builds: [{ id: '0.16.10', channel: 'STABLE', sha256: launcher.sha256, size: 200, download: launcher }, { id: '0.16.9', channel: 'STABLE', download: { url: 'https://meta.fabricmc.net/v2/versions/loader/1.21.4/0.16.9/1.0.1/server/jar' } }],
      }],
      syncState: () => ({}),
      prepare: () => Promise.resolve(undefined),
    });
    const resolved = catalog.resolve({ template: 'fabric', version: '1.21.4' });
    if ('problem' in resolved) throw new Error(resolved.problem);
    expect(resolved.build).to.equal('0.16.10');
    expect(resolved.download).to.deep.equal(launcher);
    expect(resolved.companions).to.deep.equal([vanilla]);
    expect(resolved.template.install).to.deep.equal({
      source: 'download', file: 'fabric-server-launch.jar', artifacts: { '1.21.4': { sha256: launcher.sha256, size: 200, build: '0.16.10' } },
      companions: [{ file: 'minecraft-server.jar', sha1: vanilla.sha1, size: 100 }],
    });
    const command = resolveRunCommand(resolved.template, values);
    expect(command.args.slice(-4)).to.deep.equal(['-Dfabric.installer.server.gameJar=/srv/s1/.cairn/minecraft-server.jar', '-jar', '/srv/s1/.cairn/fabric-server-launch.jar', 'nogui']);
    expect(catalog.resolve({ template: 'fabric', version: '1.21.4', build: '0.16.9' })).to.deep.equal({ problem: 'fabric 1.21.4 build 0.16.9 has no verifiable download' });
  });

  it('refuses a missing or empty directory', async () => {
    expect((await refusal(join(tmpdir(), 'cairn-no-such-templates'))).message).to.include('cannot read the templates directory');
    const empty = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
    dirs.push(empty);
    expect((await refusal(empty)).message).to.include('no *.json template files');
  });
});
