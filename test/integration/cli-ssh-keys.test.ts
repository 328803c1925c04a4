import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreatedApiToken } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';
import { ed25519KeyPair } from '../support/sftp-client.js';

interface KeyItem { id: string; name: string; fingerprint: string }

/** `cairn create ssh-key`, `get ssh-keys`, `delete ssh-key` in the built `cairn` (`npm run build` first). */
describe('cairn create|get|delete ssh-key: the caller\'s SSH keys for SFTP', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env, stdin });
  const ok = async (args: string[], stdin?: string) => {
    const res = await cairn(args, stdin);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  const keys = async () => (await admin.get<{ items: KeyItem[] }>('/me/ssh-keys')).body.items;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-keys-'));
    const token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-keys' })).body.token;
    // HOME is where the default key (~/.ssh/id_ed25519.pub) is looked for.
    env = { CAIRN_URL: t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: join(home, 'credentials.json'), HOME: home };
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await t?.dispose();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('without a key file and without ~/.ssh/id_ed25519.pub it refuses naming the flag (exit 2), asking nothing', async () => {
    const res = await cairn(['create', 'ssh-key', 'laptop']);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.include(`${join(home, '.ssh/id_ed25519.pub')} is not there`).and.include('--public-key-file FILE');
    expect(await keys()).to.deep.equal([]);
  });

  it('adds the default key, one from a file and one from stdin; get lists them; delete removes one by name', async () => {
    const first = ed25519KeyPair();
    await mkdir(join(home, '.ssh'));
    await writeFile(join(home, '.ssh/id_ed25519.pub'), `${first.public} me@laptop\n`);
    expect(await ok(['create', 'ssh-key', 'laptop'])).to.match(/^ssh-key\/laptop created \(SHA256:[A-Za-z0-9+/]{43}\)\n$/);
    const second = ed25519KeyPair();
    await writeFile(join(home, 'ci.pub'), second.public);
    const created = JSON.parse(await ok(['create', 'ssh-key', 'ci', '--public-key-file', join(home, 'ci.pub'), '-o', 'json'])) as KeyItem;
    expect(created.name).to.equal('ci');
    expect(await ok(['create', 'ssh-key', 'desk', '--public-key-file', '-'], `${ed25519KeyPair().public}\n`)).to.match(/^ssh-key\/desk created/);

    const listed = await keys();
    expect(listed.map((k) => k.name).sort()).to.deep.equal(['ci', 'desk', 'laptop']);
    const table = (await ok(['get', 'ssh-keys'])).trimEnd().split('\n');
    expect(table[0]).to.match(/^NAME\s+FINGERPRINT\s+CREATED$/);
    expect(table).to.have.length(4);
    const ci = listed.find((k) => k.name === 'ci')!;
    expect(table.find((l) => l.startsWith('ci '))).to.match(new RegExp(`^ci\\s+${ci.fingerprint.replace(/[+/]/g, '\\$&')}\\s+\\d{4}-\\d\\d-\\d\\dT`));
    expect(await ok(['get', 'ssh-key', 'ci', '-o', 'name'])).to.equal('ssh-key/ci\n');

    expect(await ok(['delete', 'ssh-key', 'ci'])).to.equal('ssh-key/ci deleted\n');
    expect((await keys()).map((k) => k.name).sort()).to.deep.equal(['desk', 'laptop']);
    expect(await ok(['delete', 'ssh-key', listed.find((k) => k.name === 'desk')!.id])).to.equal('ssh-key/desk deleted\n');
    const gone = await cairn(['delete', 'ssh-key', 'ci']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.equal('Error from server (not_found): ssh-key "ci" not found\n');
  });

  it('a bad key is the API\'s refusal (exit 1) naming body.publicKey; the same key twice is a conflict; a private key never leaves', async () => {
    await writeFile(join(home, 'junk.pub'), 'ssh-ed25519 AAAAnotakey me@host\n');
    const junk = await cairn(['create', 'ssh-key', 'junk', '--public-key-file', join(home, 'junk.pub')]);
    expect(junk.code).to.equal(1);
    expect(junk.stderr).to.match(/^Error from server \(invalid_request\): .*body\.publicKey/);
    const again = await cairn(['create', 'ssh-key', 'again']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/^Error from server \(conflict\): body\.publicKey: you added this key already/);
    const priv = await cairn(['create', 'ssh-key', 'oops', '--public-key-file', '-'], ed25519KeyPair().private);
    expect(priv.code).to.equal(2);
    expect(priv.stderr).to.include('stdin holds a private key');
    expect((await keys()).map((k) => k.name)).to.deep.equal(['laptop']);
  });
});
