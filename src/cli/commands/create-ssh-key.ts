import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import type { CreateSshKey, SshKey } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { UsageError } from '../errors.js';
import { formatDone } from '../output.js';

/** The key OpenSSH's `ssh-keygen` writes by default today. */
const defaultKeyFile = () => join(homedir(), '.ssh', 'id_ed25519.pub');

/**
 * The public key line: from the file given, stdin for `-`, else the default key when there is one.
 * A private key is refused here, before it could leave this machine.
 */
async function publicKeyOf(file: string | undefined): Promise<string> {
  let content: string;
  if (file === '-') {
    content = await text(process.stdin);
  } else {
    const path = file ?? defaultKeyFile();
    try {
      content = await readFile(path, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new UsageError(file === undefined ? `${path} is not there (${code}): name the public key with --public-key-file FILE (- reads stdin)` : `--public-key-file ${path}: ${code}`);
    }
  }
  if (content.includes('PRIVATE KEY')) throw new UsageError(`${file === '-' ? 'stdin' : file ?? defaultKeyFile()} holds a private key: give its public half (the .pub file)`);
  return content.trim();
}

export function registerCreateSshKey(create: Command): void {
  withGlobals(create.command('ssh-key'))
    .description('add an SSH public key to your account, to sign in to SFTP with')
    .argument('<name>', 'a name to know it by, e.g. the machine it is on')
    .option('--public-key-file <file>', 'the OpenSSH public key, one line; - reads stdin (default: ~/.ssh/id_ed25519.pub)')
    .action(async (name: string, opts: { publicKeyFile?: string }, cmd: Command) => {
      const request: CreateSshKey = { name, publicKey: await publicKeyOf(opts.publicKeyFile) };
      const { client, format } = await connect(cmd);
      const key = await client.post<SshKey>('/me/ssh-keys', request);
      print(formatDone('ssh-key', key.name, `created (${key.fingerprint})`, key, format));
    });
}
