import { expect } from 'chai';
import { listFabricVersions } from '../../src/controller/adapters/software/fabric-listing.js';
import type { ListedVersionRecord } from '../../src/controller/schemas/software.js';
import { FakeUpstream } from '../support/fake-upstream.js';

const mojang: ListedVersionRecord[] = [
  { version: '1.21.4', type: 'release', java: { minimum: 21 }, download: { url: 'https://piston-data.mojang.com/v1/objects/a/server.jar', sha1: 'a'.repeat(40), size: 10 } },
  { version: '1.20.1', type: 'release', java: { minimum: 17 }, download: { url: 'https://piston-data.mojang.com/v1/objects/b/server.jar', sha1: 'b'.repeat(40), size: 20 } },
];

describe('Fabric versions from the meta API v2 (a local meta.fabricmc.net)', () => {
  let upstream: FakeUpstream;

  before(async () => {
    upstream = await FakeUpstream.start();
  });
  beforeEach(() => {
    upstream.fabric = {
      games: [{ version: '25w01a', stable: false }, { version: '1.21.4', stable: true }, { version: '1.21.3', stable: true }, { version: '1.20.1', stable: true }],
      loaders: [{ version: '0.17.0-beta.1', stable: false }, { version: '0.16.10', stable: true }, { version: '0.16.9', stable: true }],
      installers: [{ version: '1.1.0', stable: false }, { version: '1.0.1', stable: true }],
    };
  });
  after(async () => upstream.close());

  it('offers the stable game versions Mojang serves, newest first, with the newest stable loader as default and Mojang\'s jar and Java', async () => {
    const listed = await listFabricVersions(`${upstream.fabricBase}/`, mojang);
    expect(listed.map((v) => v.version)).to.deep.equal(['1.21.4', '1.20.1']);
    expect(listed[0]).to.deep.include({ java: { minimum: 21 }, latestBuild: '0.16.10', installer: '1.0.1', download: mojang[0].download });
    expect(listed[0].builds).to.deep.equal([
      { id: '0.16.10', channel: 'STABLE', download: { url: `${upstream.fabricBase}/versions/loader/1.21.4/0.16.10/1.0.1/server/jar` } },
      { id: '0.16.9', channel: 'STABLE', download: { url: `${upstream.fabricBase}/versions/loader/1.21.4/0.16.9/1.0.1/server/jar` } },
    ]);
    expect(listed[1].java).to.deep.equal({ minimum: 17 });
  });

  it('offers nothing without a stable installer or loader', async () => {
    upstream.fabric.installers = [{ version: '1.1.0', stable: false }];
    expect(await listFabricVersions(upstream.fabricBase, mojang)).to.deep.equal([]);
    upstream.fabric.installers = [{ version: '1.0.1', stable: true }];
    upstream.fabric.loaders = [{ version: '0.17.0-beta.1', stable: false }];
    expect(await listFabricVersions(upstream.fabricBase, mojang)).to.deep.equal([]);
  });

  it('refuses an answer of another shape, naming the URL and the field', async () => {
    upstream.fabric.games = [{ version: '1.21.4' } as never];
    try {
      await listFabricVersions(upstream.fabricBase, mojang);
      expect.fail('an answer without `stable` was taken');
    } catch (e) {
      expect((e as Error).message).to.match(/\/v2\/versions\/game answered an unexpected shape \(\/0 must have required property 'stable'\)/);
    }
  });
});
