import { expect } from 'chai';
import { forgeVersion, mavenVersions, neoforgeVersion } from '../../src/controller/adapters/software/maven-listing.js';
import { TemplateCatalog } from '../../src/controller/adapters/software/template-catalog.js';
import { argFileOfRunScript, legacyJarArgs, parseArgFile, rewriteLibraryPaths } from '../../src/controller/domain/installer-args.js';
import type { InstallerOutputRecord } from '../../src/controller/schemas/installer-output.js';
import { resolveRunCommand, type PlaceholderValues } from '../../src/shared/templates.js';

const values: PlaceholderValues = {
  java: '/usr/bin/java', node: '/usr/bin/node', serverDir: '/srv/s1', cairnDir: '/srv/s1/.cairn',
  memoryMb: '2048', heapMb: '1638', cpus: '2', port: '25570', bindAddress: '0.0.0.0', version: '1.21.4',
};

describe('NeoForge and Forge: versions from Maven, the installer\'s start arguments', () => {
  it('maps NeoForge versions to their game version: X.Y.Z is 1.X.Y, X.0.Z is 1.X, -beta is not stable, other shapes are left out', () => {
    expect(neoforgeVersion('21.4.136')).to.deep.equal({ game: '1.21.4', loader: '21.4.136', stable: true, maven: '21.4.136' });
    expect(neoforgeVersion('21.0.167')).to.deep.include({ game: '1.21', stable: true });
    expect(neoforgeVersion('20.2.3-beta')).to.deep.include({ game: '1.20.2', loader: '20.2.3-beta', stable: false });
    expect(neoforgeVersion('21.10.5')).to.deep.include({ game: '1.21.10' });
    expect(neoforgeVersion('0.25w14craftmine.3-beta')).to.equal(undefined);
    expect(neoforgeVersion('47.1.82')).to.deep.include({ game: '1.47.1' });
  });

  it('maps Forge versions: 1.21.4-54.0.12 is game 1.21.4, loader 54.0.12; the oldest shapes are left out', () => {
    expect(forgeVersion('1.21.4-54.0.12')).to.deep.equal({ game: '1.21.4', loader: '54.0.12', stable: true, maven: '1.21.4-54.0.12' });
    expect(forgeVersion('1.20-46.0.14')).to.deep.include({ game: '1.20', loader: '46.0.14' });
    expect(forgeVersion('1.16.5-36.2.39')).to.deep.include({ game: '1.16.5', loader: '36.2.39' });
    expect(forgeVersion('1.7.10-10.13.4.1614-1.7.10')).to.equal(undefined);
    expect(forgeVersion('1.7.10_pre4-10.12.2.1149-prerelease')).to.equal(undefined);
  });

  it('reads the <version> elements of maven-metadata.xml, and refuses an answer without them', () => {
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n  <groupId>net.neoforged</groupId>\n  <artifactId>neoforge</artifactId>\n  <versioning>\n    <latest>21.4.136</latest>\n    <versions>\n      <version>20.2.3-beta</version>\n      <version> 21.4.136 </version>\n    </versions>\n  </versioning>\n</metadata>\n';
    expect(mavenVersions(xml, 'u')).to.deep.equal(['20.2.3-beta', '21.4.136']);
    expect(() => mavenVersions('<html>not found</html>', 'http://x/maven-metadata.xml')).to.throw(/http:\/\/x\/maven-metadata\.xml answered no <metadata><versioning><versions> element/);
  });

  it('parses a Java argument file: white space, quotes, escapes inside quotes, # comments', () => {
    const text = '# written by the installer\n-Djava.net.preferIPv6Addresses=system\n-DignoreList=a.jar,b.jar  -p libraries/a.jar:libraries/b.jar\n"--add-opens" \'java.base/java.util.jar=cpw.mods.securejarhandler\'\n-Dname="with space"x #comment here\n"tab\\there" a#b\n';
    expect(parseArgFile(text)).to.deep.equal([
      '-Djava.net.preferIPv6Addresses=system', '-DignoreList=a.jar,b.jar', '-p', 'libraries/a.jar:libraries/b.jar',
      '--add-opens', 'java.base/java.util.jar=cpw.mods.securejarhandler', '-Dname=with spacex', 'tab\there', 'a#b',
    ]);
    expect(parseArgFile('')).to.deep.equal([]);
    expect(parseArgFile('""')).to.deep.equal(['']);
  });

  it('points every relative libraries/ path at {cairnDir}: as an argument, after = and after :, nothing else', () => {
    expect(rewriteLibraryPaths([
      '-DlibraryDirectory=libraries', '-p', 'libraries/a.jar:libraries/b.jar', '-DlegacyClassPath=libraries/c.jar:libraries/d.jar',
      'libraries/net/neoforged/neoforge/21.4.136/server.jar', '--add-opens', 'java.base/java.util.jar=ALL-UNNAMED', 'mylibraries/x', '/opt/libraries/y',
    ])).to.deep.equal([
      '-DlibraryDirectory={cairnDir}/libraries', '-p', '{cairnDir}/libraries/a.jar:{cairnDir}/libraries/b.jar',
      '-DlegacyClassPath={cairnDir}/libraries/c.jar:{cairnDir}/libraries/d.jar', '{cairnDir}/libraries/net/neoforged/neoforge/21.4.136/server.jar',
      '--add-opens', 'java.base/java.util.jar=ALL-UNNAMED', 'mylibraries/x', '/opt/libraries/y',
    ]);
  });

  it('finds the argument file run.sh names; an older Forge is started by its jar', () => {
    expect(argFileOfRunScript('#!/usr/bin/env sh\njava @user_jvm_args.txt @libraries/net/neoforged/neoforge/21.4.136/unix_args.txt "$@"\n')).to.equal('libraries/net/neoforged/neoforge/21.4.136/unix_args.txt');
    expect(argFileOfRunScript('java -jar forge.jar')).to.equal(undefined);
    expect(legacyJarArgs('forge-1.16.5-36.2.39.jar')).to.deep.equal(['-jar', '{cairnDir}/forge-1.16.5-36.2.39.jar']);
  });

  it('resolves an installer\'s build to its tree, the installer\'s arguments before nogui; a build not run yet is a problem', async () => {
    const catalog = await TemplateCatalog.load();
    const output = (args: string[]): InstallerOutputRecord => ({
      game: '1.16.5', loader: '36.2.39', installerSha256: 'a'.repeat(64), tree: { sha256: 'b'.repeat(64), size: 300 },
      produced: [{ sha256: 'b'.repeat(64), size: 300 }, { sha256: 'c'.repeat(64), size: 10 }], args, ranAt: '2026-11-29T12:00:00.000Z',
    });
    const url = 'https://maven.minecraftforge.net/net/minecraftforge/forge/1.16.5-36.2.39/forge-1.16.5-36.2.39-installer.jar';
    catalog.useListings({
      listed: (source) => source.source !== 'forge' ? [] : [{
        version: '1.16.5', java: { minimum: 8 }, latestBuild: '36.2.39',
        builds: [
          { id: '36.2.39', channel: 'STABLE', download: { url }, installed: output(legacyJarArgs('forge-1.16.5-36.2.39.jar')) },
          { id: '36.2.34', channel: 'STABLE', download: { url } },
        ],
      }],
      syncState: () => ({}),
      prepare: () => Promise.resolve(undefined),
    });
    const resolved = catalog.resolve({ template: 'forge', version: '1.16.5' });
    if ('problem' in resolved) throw new Error(resolved.problem);
    expect(resolved.build).to.equal('36.2.39');
    expect(resolved.download).to.equal(undefined);
    expect(resolved.produced).to.deep.equal(output([]).produced);
    expect(resolved.template.install).to.deep.equal({ source: 'tree', tree: { sha256: 'b'.repeat(64), size: 300 }, build: '36.2.39' });
    expect(resolved.template.java).to.deep.equal({ minimum: 8 });
    const command = resolveRunCommand(resolved.template, values);
    expect(command.command).to.equal('/usr/bin/java');
    expect(command.args).to.deep.equal(['-Xms1638M', '-Xmx1638M', '-XX:ActiveProcessorCount=2', '-jar', '/srv/s1/.cairn/forge-1.16.5-36.2.39.jar', 'nogui']);
    expect(catalog.resolve({ template: 'forge', version: '1.16.5', build: '36.2.34' })).to.deep.equal({ problem: 'forge 1.16.5 build 36.2.34: its installer has not run on the Controller yet' });
    expect(catalog.resolve({ template: 'forge', version: '1.16.5', build: '1' })).to.deep.equal({ problem: 'forge 1.16.5 lists no build 1' });
  });
});
