import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../../src/controller/core/errors.js';
import { SecretBox, SecretBoxError } from '../../src/controller/security/secret-box.js';
import { openSealed } from '../../src/controller/security/sealed-secret.js';

describe('SecretBox: secrets the store keeps, encrypted with a key outside it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-secret-box-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('creates its key file once (mode 0600) and opens what it sealed after a restart', async () => {
    const path = join(dir, 'secrets.key');
    const sealed = (await SecretBox.fromFile(path)).seal('client-secret-value', 'oidc:client-secret');
    expect((await stat(path)).mode & 0o777).to.equal(0o600);
    expect(sealed).to.not.include('client-secret-value');
    const key = await readFile(path, 'utf8');
    expect((await SecretBox.fromFile(path)).open(sealed, 'oidc:client-secret')).to.equal('client-secret-value');
    expect(await readFile(path, 'utf8'), 'the key is not replaced').to.equal(key);
  });

  it('refuses a sealed value whose tag was cut short, though the shorter tag is the right one\'s prefix', () => {
    const box = SecretBox.ofKey(randomBytes(32));
    const [version, iv, tag, data] = box.seal('secret', 'p').split('.');
    for (const bytes of [4, 8, 12, 15]) {
      const cut = Buffer.from(tag, 'base64url').subarray(0, bytes).toString('base64url');
      expect(() => box.open([version, iv, cut, data].join('.'), 'p'), `${bytes} bytes`).to.throw(SecretBoxError);
    }
  });

  it('gives two Controllers creating the key at once the same key', async () => {
    const path = join(dir, 'secrets.key');
    const [a, b] = await Promise.all([SecretBox.fromFile(path), SecretBox.fromFile(path)]);
    expect(b.open(a.seal('x', 'p'), 'p')).to.equal('x');
  });

  it('refuses another purpose, another key and a changed value', () => {
    const box = SecretBox.ofKey(randomBytes(32));
    const sealed = box.seal('seed', 'totp:user-1');
    expect(sealed).to.not.equal(box.seal('seed', 'totp:user-1'), 'a fresh nonce each time');
    expect(() => box.open(sealed, 'totp:user-2')).to.throw(SecretBoxError);
    expect(() => SecretBox.ofKey(randomBytes(32)).open(sealed, 'totp:user-1')).to.throw(SecretBoxError);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'totp:user-1')).to.throw(SecretBoxError);
    expect(() => box.open('plain text', 'totp:user-1')).to.throw(SecretBoxError, /not a sealed value/);
  });

  it('refuses a key file that holds no 32-byte key', async () => {
    const path = join(dir, 'bad.key');
    await writeFile(path, 'c2hvcnQ=\n');
    let error: unknown;
    await SecretBox.fromFile(path).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(SecretBoxError);
  });

  it('openSealed says a value sealed under another key file is the operator\'s to mend, not an internal error', () => {
    const sealed = SecretBox.ofKey(randomBytes(32)).seal('seed', 'totp:u');
    let error: unknown;
    try {
      openSealed(SecretBox.ofKey(randomBytes(32)), sealed, 'totp:u', 'Reset it.');
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('conflict');
    expect((error as DomainError).message).to.include('--secrets-key-file').and.include('Reset it.');
  });
});
