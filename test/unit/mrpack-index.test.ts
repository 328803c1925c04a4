import { expect } from 'chai';
import { allowedPackUrl, overridePath, packSizeProblem, readPackIndex } from '../../src/controller/domain/mrpack-index.js';
import type { MrpackIndexFile } from '../../src/controller/schemas/modrinth-answers.js';

const base = 'https://api.modrinth.com/v2';
const hashes = { sha1: 'a'.repeat(40), sha512: 'b'.repeat(128) };
const file = (path: string, extra: Partial<MrpackIndexFile['files'][number]> = {}) => ({ path, hashes, downloads: [`https://cdn.modrinth.com/data/x/${path}`], fileSize: 10, ...extra });
const index = (over: Partial<MrpackIndexFile> = {}): MrpackIndexFile => ({
  formatVersion: 1, game: 'minecraft', dependencies: { minecraft: '1.21.4', 'fabric-loader': '0.16.10' }, files: [file('mods/a.jar')], ...over,
});
const problemOf = (i: MrpackIndexFile) => {
  const read = readPackIndex(i, base);
  return 'problem' in read ? read.problem : undefined;
};

describe('the .mrpack index (modrinth.index.json, format 1)', () => {
  it('takes the game version and the loader from dependencies, and the files a server needs', () => {
    const read = readPackIndex(index({
      files: [file('mods/a.jar'), file('mods/client.jar', { env: { client: 'required', server: 'unsupported' } }), file('mods/opt.jar', { env: { client: 'optional', server: 'optional' } })],
    }), base);
    expect(read).to.deep.equal({
      game: '1.21.4', loader: { template: 'fabric', build: '0.16.10' },
      files: [
        { path: 'mods/a.jar', url: 'https://cdn.modrinth.com/data/x/mods/a.jar', sha512: hashes.sha512, sha1: hashes.sha1, size: 10 },
        { path: 'mods/opt.jar', url: 'https://cdn.modrinth.com/data/x/mods/opt.jar', sha512: hashes.sha512, sha1: hashes.sha1, size: 10 },
      ],
    });
    expect(readPackIndex(index({ dependencies: { minecraft: '1.21.1', neoforge: '21.1.77' } }), base)).to.deep.include({ loader: { template: 'neoforge', build: '21.1.77' } });
    expect(readPackIndex(index({ dependencies: { minecraft: '1.20.1', forge: '47.3.0' } }), base)).to.deep.include({ loader: { template: 'forge', build: '47.3.0' } });
  });

  it('refuses another format, game, a loader it does not run, none or two loaders', () => {
    expect(problemOf(index({ formatVersion: 2 }))).to.match(/formatVersion is 2/);
    expect(problemOf(index({ game: 'terraria' }))).to.match(/"terraria", not minecraft/);
    expect(problemOf(index({ dependencies: { minecraft: '1.21.4', 'quilt-loader': '0.27.0' } }))).to.match(/loader quilt-loader, which Cairn does not run/);
    expect(problemOf(index({ dependencies: { minecraft: '1.21.4' } }))).to.match(/one loader/);
    expect(problemOf(index({ dependencies: { minecraft: '1.21.4', forge: '1', neoforge: '2' } }))).to.match(/names 2/);
    expect(problemOf(index({ dependencies: { 'fabric-loader': '0.16.10' } }))).to.match(/no minecraft version/);
  });

  it('refuses paths that could lead outside the server\'s directory', () => {
    for (const path of ['../x.jar', 'mods/../../x.jar', '/etc/passwd', 'mods\\x.jar', 'C:/x.jar', '.cairn/x.jar', 'mods//x.jar']) {
      expect(problemOf(index({ files: [file(path, { downloads: ['https://cdn.modrinth.com/x.jar'] })] })), path).to.be.a('string');
    }
    // A client-only file is never written: its path is not looked at.
    expect(problemOf(index({ files: [file('../client.jar', { env: { server: 'unsupported' } })] }))).to.equal(undefined);
  });

  it('downloads only from the format\'s hosts over https, or from the configured Modrinth\'s own host', () => {
    expect(allowedPackUrl('https://cdn.modrinth.com/data/a.jar', base)).to.equal(true);
    expect(allowedPackUrl('https://github.com/o/r/releases/a.jar', base)).to.equal(true);
    expect(allowedPackUrl('https://raw.githubusercontent.com/o/r/a.jar', base)).to.equal(true);
    expect(allowedPackUrl('https://gitlab.com/o/r/a.jar', base)).to.equal(true);
    expect(allowedPackUrl('http://cdn.modrinth.com/data/a.jar', base)).to.equal(false);
    expect(allowedPackUrl('https://cdn.modrinth.com.evil.example/a.jar', base)).to.equal(false);
    expect(allowedPackUrl('https://cdn.modrinth.com:8443/a.jar', base)).to.equal(false);
    expect(allowedPackUrl('https://mediafilez.forgecdn.net/a.jar', base)).to.equal(false);
    expect(allowedPackUrl('http://127.0.0.1:4000/files/a.jar', 'http://127.0.0.1:4000/v2')).to.equal(true);
    expect(allowedPackUrl('http://127.0.0.1:4001/files/a.jar', 'http://127.0.0.1:4000/v2')).to.equal(false);
    // The first allowed download of a file is taken; a file with none is refused naming its hosts.
    const read = readPackIndex(index({ files: [file('mods/a.jar', { downloads: ['https://edge.forgecdn.net/a.jar', 'https://github.com/a.jar'] })] }), base);
    expect('files' in read && read.files[0].url).to.equal('https://github.com/a.jar');
    expect(problemOf(index({ files: [file('mods/a.jar', { downloads: ['https://edge.forgecdn.net/a.jar'] })] }))).to.match(/edge\.forgecdn\.net.*allowed: cdn\.modrinth\.com/);
  });

  it('bounds the unpacked size at 4 GiB, overrides included', () => {
    expect(packSizeProblem([{ size: 2 ** 31 }, { size: 2 ** 31 }], 0)).to.equal(undefined);
    expect(packSizeProblem([{ size: 2 ** 31 }, { size: 2 ** 31 }], 1)).to.match(/4294967297 bytes, more than the 4294967296/);
  });

  it('maps overrides/ and server-overrides/ entries to server paths, server-overrides after', () => {
    expect(overridePath('overrides/config/a.toml')).to.deep.equal({ path: 'config/a.toml', layer: 0 });
    expect(overridePath('server-overrides/config/a.toml')).to.deep.equal({ path: 'config/a.toml', layer: 1 });
    expect(overridePath('client-overrides/options.txt')).to.equal(undefined);
    expect(overridePath('overrides/config/')).to.equal(undefined);
    expect(overridePath('modrinth.index.json')).to.equal(undefined);
    expect(overridePath('overrides/../escape.txt')).to.have.property('problem');
    expect(overridePath('overrides/.cairn/x')).to.have.property('problem');
  });
});
