import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '../../src/controller/security/secret-box.js';
import { ForwardingSecret } from '../../src/controller/services/network/forwarding-secret.js';
import { EmbeddedAdapter } from '../../src/controller/store/embedded/embedded-adapter.js';
import type { SettingDoc } from '../../src/controller/store/records.js';
import { TestClock } from '../support/clock.js';

describe('the network forwarding secret in the store', () => {
  let dir: string;
  let adapter: EmbeddedAdapter;
  const clock = new TestClock();
  const secrets = SecretBox.ofKey(Buffer.alloc(32, 3));
  const at = '2026-11-29T00:00:00.000Z';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-fwd-'));
    adapter = await EmbeddedAdapter.open(dir, clock);
  });
  afterEach(async () => {
    await adapter.close();
    await rm(dir, { recursive: true, force: true });
  });

  const made = async () => {
    const settings = await adapter.openCollection<SettingDoc>('settings', []);
    return { settings, secret: new ForwardingSecret({ clock, secrets, repos: { settings } }) };
  };

  it('a secret an older Controller stored in clear is sealed at start and stays the same', async () => {
    const { settings, secret } = await made();
    await settings.insert({ _id: 'network-forwarding-secret', value: { secret: 'x'.repeat(40) }, updatedAt: at });
    await secret.sealStored();
    const stored = (await settings.findById('network-forwarding-secret'))?.value;
    expect(stored).to.have.all.keys('sealed');
    expect(JSON.stringify(stored)).to.not.include('x'.repeat(40));
    expect(await secret.get()).to.equal('x'.repeat(40));
    expect(await new ForwardingSecret({ clock, secrets, repos: { settings } }).get()).to.equal('x'.repeat(40));
  });

  it('is made sealed, and a rotation is seen by another Controller on the same store', async () => {
    const { settings, secret } = await made();
    const first = await secret.get();
    expect((await settings.findById('network-forwarding-secret'))?.value).to.have.all.keys('sealed');
    const other = new ForwardingSecret({ clock, secrets, repos: { settings } });
    expect(await other.get()).to.equal(first);
    await secret.rotate();
    const second = await other.get();
    expect(second).to.not.equal(first);
    expect(second).to.equal(await secret.get());
  });
});
