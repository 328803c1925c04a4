import { expect } from 'chai';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backoffDelay } from '../../src/shared/backoff.js';
import { AgentConfigError, parseAgentConfig } from '../../src/agent/config.js';
import { ConfigError, parseControllerConfig } from '../../src/controller/program/config.js';
import { mergeAgentConditions } from '../../src/controller/actors/node-conditions.js';
import { isNodeAddress, reachAddressOf } from '../../src/shared/node-address.js';
import { InvalidCredentialError, NodeCredentials } from '../../src/controller/link/node-credentials.js';
import { loadLinkSigningKey } from '../../src/controller/services/nodes/link-signing-key.js';
import type { Collection } from '../../src/controller/store/collection.js';
import { EmbeddedAdapter } from '../../src/controller/store/embedded/embedded-adapter.js';
import type { SettingDoc } from '../../src/controller/store/records.js';
import { SecretBox } from '../../src/controller/security/secret-box.js';
import { TestClock } from '../support/clock.js';
import { peerAddress } from '../../src/controller/link/peer-address.js';

describe('Agent link rules', () => {
  it('backoff grows exponentially to its cap with half of each delay random', () => {
    const policy = { initialMs: 500, maxMs: 30_000, factor: 2 };
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, policy, () => 0))).to.deep.equal([250, 500, 1000, 2000]);
    expect(backoffDelay(3, policy, () => 1)).to.equal(4000);
    expect(backoffDelay(40, policy, () => 0.5)).to.equal(22_500);
  });

  it('peer strings become plain IP addresses', () => {
    expect(peerAddress('127.0.0.1:5000')).to.equal('127.0.0.1');
    expect(peerAddress('[::1]:5000')).to.equal('::1');
    expect(peerAddress('[::ffff:10.0.0.2]:6000')).to.equal('10.0.0.2');
    expect(peerAddress('unix:/tmp/sock')).to.equal('unix:/tmp/sock');
  });

  it('Node addresses are host names or IPs without a port; reachAddress falls back to the observed one', () => {
    for (const ok of ['', 'node-1.example.com', '10.0.0.1', '2001:db8::1']) expect(isNodeAddress(ok), ok).to.equal(true);
    for (const bad of ['10.0.0.1:30565', 'host:1', 'bad host', '-x.example', 'a'.repeat(254)]) expect(isNodeAddress(bad), bad).to.equal(false);
    expect(reachAddressOf('', '10.0.0.9')).to.equal('10.0.0.9');
    expect(reachAddressOf('n.example', '10.0.0.9')).to.equal('n.example');
    expect(reachAddressOf('', undefined)).to.equal('');
  });

  it('Agent conditions are namespaced and keep the since they were first seen with', () => {
    const first = mergeAgentConditions([], [{ id: 'disk-pressure', reason: 'DISK_PRESSURE', message: 'a', since: '2030-01-01T00:00:00.000Z' }], '2030-01-01T00:00:05.000Z');
    expect(first).to.deep.equal([{ id: 'agent.disk-pressure', source: 'AGENT', reason: 'DISK_PRESSURE', message: 'a', since: '2030-01-01T00:00:00.000Z' }]);
    const again = mergeAgentConditions(first, [{ id: 'disk-pressure', reason: 'DISK_PRESSURE', message: 'b', since: '2030-01-01T00:09:00.000Z' }], '2030-01-01T00:10:00.000Z');
    expect(again[0]).to.include({ message: 'b', since: '2030-01-01T00:00:00.000Z' });
    expect(mergeAgentConditions(again, [], '2030-01-01T00:11:00.000Z')).to.deep.equal([]);
  });

  it('the Agent needs --controller HOST:PORT and --data-dir; resource overrides are whole numbers', () => {
    const config = parseAgentConfig(['--controller', 'ctl.example:8443', '--data-dir', 'd', '--cpu-millis', '2000'], {});
    expect(config).to.include({ controller: 'ctl.example:8443', cpuMillis: 2000 });
    expect(() => parseAgentConfig(['--data-dir', 'd'], {})).to.throw(/--controller/);
    expect(() => parseAgentConfig(['--controller', 'ctl:1'], {})).to.throw(/--data-dir/);
    expect(() => parseAgentConfig(['--controller', 'ctl:1', '--data-dir', 'd', '--memory-bytes', '1.5'], {})).to.throw(/memory-bytes/);
    expect(parseAgentConfig(['--controller', 'ctl:1', '--data-dir', 'd'], { CAIRN_ENROLLMENT_TOKEN: 'tok' }).enrollmentToken).to.equal('tok');
  });

  it('--game-ports FIRST-LAST (or CAIRN_GAME_PORTS) is an unprivileged range, 25565-26564 by default; the Controller passes one on to its local Agent', () => {
    const agent = (args: string[], env: NodeJS.ProcessEnv = {}) => parseAgentConfig(['--controller', 'ctl:1', '--data-dir', 'd', ...args], env).gamePorts;
    expect(agent([])).to.deep.equal({ first: 25565, last: 26564 });
    expect(agent(['--game-ports', '30000-30199'])).to.deep.equal({ first: 30000, last: 30199 });
    expect(agent(['--game-ports', '40000-40000'], { CAIRN_GAME_PORTS: '1-2' })).to.deep.equal({ first: 40000, last: 40000 });
    expect(agent([], { CAIRN_GAME_PORTS: '1024-65535' })).to.deep.equal({ first: 1024, last: 65535 });
    for (const bad of ['30000', '30200-30000', '80-90', '1023-2000', '60000-65536', 'a-b', '30000-30100-30200', ' ']) {
      expect(() => agent(['--game-ports', bad]), bad).to.throw(AgentConfigError, /^--game-ports must be FIRST-LAST/);
    }
    const controller = (args: string[]) => parseControllerConfig(['--local-agent', ...args], {}).localAgentGamePorts;
    expect(controller([])).to.equal(undefined);
    expect(controller(['--game-ports', '30000-30199'])).to.deep.equal({ first: 30000, last: 30199 });
    expect(() => controller(['--game-ports', '100-200'])).to.throw(ConfigError, /^--game-ports must be FIRST-LAST/);
  });

  describe('Node credentials', () => {
    let dir: string;
    let adapter: EmbeddedAdapter;
    let settings: Collection<SettingDoc>;
    const at = '2026-11-24T00:00:00.000Z';
    const secrets = SecretBox.ofKey(Buffer.alloc(32, 7));
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'cairn-cred-'));
      adapter = await EmbeddedAdapter.open(join(dir, 'store-home'), new TestClock());
      settings = await adapter.openCollection<SettingDoc>('settings', []);
    });
    after(async () => {
      await adapter.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('the key is made at first start and kept in the store: a Controller with another data dir checks the same credentials', async () => {
      const first = await loadLinkSigningKey(settings, secrets, join(dir, 'data-a'), at);
      const token = await first.issue({ nodeId: 'n1', credentialId: 'c1' }, new Date());
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).to.deep.equal({ alg: 'EdDSA' });
      const elsewhere = await loadLinkSigningKey(settings, secrets, join(dir, 'data-b'), at);
      expect(await elsewhere.verify(token)).to.deep.equal({ nodeId: 'n1', credentialId: 'c1' });
    });

    it('an older install\'s key file is moved into the store once, and its credentials stay valid', async () => {
      const legacyDir = await mkdtemp(join(dir, 'legacy-'));
      const legacyAdapter = await EmbeddedAdapter.open(legacyDir, new TestClock());
      try {
        const legacySettings = await legacyAdapter.openCollection<SettingDoc>('settings', []);
        const jwk = await NodeCredentials.generateKey();
        await writeFile(join(legacyDir, 'agent-link-key.json'), JSON.stringify(jwk), { mode: 0o600 });
        const issued = await (await NodeCredentials.fromKey(jwk)).issue({ nodeId: 'n9', credentialId: 'c9' }, new Date());
        const loaded = await loadLinkSigningKey(legacySettings, secrets, legacyDir, at);
        expect(await loaded.verify(issued)).to.deep.equal({ nodeId: 'n9', credentialId: 'c9' });
        expect(await access(join(legacyDir, 'agent-link-key.json')).then(() => 'kept', () => 'moved')).to.equal('moved');
        expect((await legacySettings.findById('agent-link-key'))?.value).to.have.all.keys('sealed');
      } finally {
        await legacyAdapter.close();
      }
    });

    it('the key is stored sealed: the store alone does not hold it, and another key file cannot open it', async () => {
      const sealedDir = await mkdtemp(join(dir, 'sealed-'));
      const sealedAdapter = await EmbeddedAdapter.open(sealedDir, new TestClock());
      try {
        const sealedSettings = await sealedAdapter.openCollection<SettingDoc>('settings', []);
        const loaded = await loadLinkSigningKey(sealedSettings, secrets, sealedDir, at);
        const stored = (await sealedSettings.findById('agent-link-key'))?.value;
        expect(stored).to.have.all.keys('sealed');
        const jwk = JSON.parse(secrets.open(String(stored?.sealed), 'agent-link-key')) as { d?: string };
        expect(JSON.stringify(stored)).not.to.include(String(jwk.d));
        expect(await loaded.verify(await (await NodeCredentials.fromKey(jwk)).issue({ nodeId: 'n3', credentialId: 'c3' }, new Date()))).to.deep.equal({ nodeId: 'n3', credentialId: 'c3' });
        const error = await loadLinkSigningKey(sealedSettings, SecretBox.ofKey(Buffer.alloc(32, 8)), sealedDir, at).catch((e: unknown) => e);
        expect(String(error)).to.match(/--secrets-key-file/);
      } finally {
        await sealedAdapter.close();
      }
    });

    it('a key an older Controller stored in clear is sealed at start and stays the same: its credentials stay valid', async () => {
      const clearDir = await mkdtemp(join(dir, 'clear-'));
      const clearAdapter = await EmbeddedAdapter.open(clearDir, new TestClock());
      try {
        const clearSettings = await clearAdapter.openCollection<SettingDoc>('settings', []);
        const jwk = await NodeCredentials.generateKey();
        await clearSettings.insert({ _id: 'agent-link-key', value: { jwk }, updatedAt: at });
        const issued = await (await NodeCredentials.fromKey(jwk)).issue({ nodeId: 'n4', credentialId: 'c4' }, new Date());
        const loaded = await loadLinkSigningKey(clearSettings, secrets, clearDir, at);
        expect(await loaded.verify(issued)).to.deep.equal({ nodeId: 'n4', credentialId: 'c4' });
        const stored = (await clearSettings.findById('agent-link-key'))?.value;
        expect(stored).to.have.all.keys('sealed');
        expect(JSON.parse(secrets.open(String(stored?.sealed), 'agent-link-key'))).to.deep.equal(jwk);
        const again = await loadLinkSigningKey(clearSettings, secrets, clearDir, at);
        expect(await again.verify(issued)).to.deep.equal({ nodeId: 'n4', credentialId: 'c4' });
      } finally {
        await clearAdapter.close();
      }
    });

    it('two Controllers starting at once end with one key', async () => {
      const raceDir = await mkdtemp(join(dir, 'race-'));
      const raceAdapter = await EmbeddedAdapter.open(raceDir, new TestClock());
      try {
        const raceSettings = await raceAdapter.openCollection<SettingDoc>('settings', []);
        const [a, b] = await Promise.all([loadLinkSigningKey(raceSettings, secrets, raceDir, at), loadLinkSigningKey(raceSettings, secrets, raceDir, at)]);
        expect(await b.verify(await a.issue({ nodeId: 'n2', credentialId: 'c2' }, new Date()))).to.deep.equal({ nodeId: 'n2', credentialId: 'c2' });
      } finally {
        await raceAdapter.close();
      }
    });

    it('refuses tampered credentials and those of another Controller', async () => {
      const ours = await loadLinkSigningKey(settings, secrets, dir, at);
      const other = await NodeCredentials.fromKey(await NodeCredentials.generateKey());
      const foreign = await other.issue({ nodeId: 'n1', credentialId: 'c1' }, new Date());
      const good = await ours.issue({ nodeId: 'n1', credentialId: 'c1' }, new Date());
      const [h, , sig] = good.split('.');
      const tampered = [h, Buffer.from(JSON.stringify({ sub: 'n2', jti: 'c1' })).toString('base64url'), sig].join('.');
      for (const bad of [foreign, tampered, 'junk']) {
        const error = await ours.verify(bad).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(InvalidCredentialError);
      }
    });
  });
});
