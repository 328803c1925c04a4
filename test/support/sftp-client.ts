import ssh2, { type Attributes, type FileEntryWithStats, type SFTPWrapper } from 'ssh2';

export type SftpLogin = { password: string } | { privateKey: string };

/** A signed-in ssh2 SFTP client with promise-returning calls; `closed` resolves when the server ends the connection. */
export interface SftpSession {
  client: ssh2.Client;
  sftp: SFTPWrapper;
  hostKeyFingerprint: string;
  closed: Promise<void>;
  put(path: string, data: Buffer): Promise<void>;
  get(path: string): Promise<Buffer>;
  list(path: string): Promise<FileEntryWithStats[]>;
  stat(path: string): Promise<Attributes>;
  mkdir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  realpath(path: string): Promise<string>;
  end(): void;
}

const call = <T>(work: (done: (err: Error | null | undefined, value?: T) => void) => void) =>
  new Promise<T>((resolve, reject) => work((err, value) => (err ? reject(err) : resolve(value as T))));

/** Connects with ssh2's client (from `localAddress`, a loopback address of its own when given); rejects with the client's error when the server refuses the sign-in. */
export function sftpConnect(port: number, username: string, login: SftpLogin, localAddress?: string): Promise<SftpSession> {
  const client = new ssh2.Client();
  let hostKeyFingerprint = '';
  const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
  return new Promise((resolve, reject) => {
    client.on('error', reject);
    client.on('ready', () => {
      client.setNoDelay(true);
      client.sftp((err, sftp) => {
        if (err) return reject(err);
        resolve({
          client, sftp, hostKeyFingerprint, closed,
          put: (path, data) => call<void>((done) => sftp.writeFile(path, data, done)),
          get: (path) => call<Buffer>((done) => sftp.readFile(path, done)),
          list: (path) => call<FileEntryWithStats[]>((done) => sftp.readdir(path, done)),
          stat: (path) => call<Attributes>((done) => sftp.stat(path, done)),
          mkdir: (path) => call<void>((done) => sftp.mkdir(path, done)),
          rename: (from, to) => call<void>((done) => sftp.rename(from, to, done)),
          remove: (path) => call<void>((done) => sftp.unlink(path, done)),
          rmdir: (path) => call<void>((done) => sftp.rmdir(path, done)),
          realpath: (path) => call<string>((done) => sftp.realpath(path, done)),
          end: () => client.end(),
        });
      });
    });
    client.connect({
      host: '127.0.0.1', port, username, ...login, tryKeyboard: false, readyTimeout: 10_000, ...(localAddress ? { localAddress } : {}),
      hostHash: 'sha256',
      hostVerifier: (hash: string) => {
        hostKeyFingerprint = `SHA256:${Buffer.from(hash, 'hex').toString('base64').replace(/=+$/, '')}`;
        return true;
      },
    });
  });
}

/**
 * An ed25519 key pair in OpenSSH's forms. ssh2 1.17's generator drops a leading zero byte of the
 * public key about once in 500 keys (a 31-byte key, which ssh2's own parser then refuses): such a
 * pair is drawn again.
 */
export function ed25519KeyPair(): { public: string; private: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    if (pair.public.startsWith('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI')) return pair;
  }
}
