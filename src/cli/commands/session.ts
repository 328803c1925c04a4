import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { CreatedApiToken, User } from '../api-types.js';
import { CliClient } from '../client.js';
import { caPathOf, connect, globalsOf, print, readCa, withGlobals } from '../context.js';
import { forgetCredentials, loadCredentials, saveCredentials } from '../credentials.js';
import { ApiError, UsageError } from '../errors.js';
import { formatOne } from '../output.js';
import { promptSecret } from '../prompt-tty.js';
import { readLineFromStdin } from '../read-secret.js';
import { userView } from '../views.js';

/** The sign-in, asking for the authentication code when the account needs one and none was given. */
async function signIn(client: CliClient, body: { username: string; password: string; totpCode?: string }) {
  try {
    return await client.call<User>('POST', '/auth/login', body);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 'totp_required') || body.totpCode !== undefined) throw e;
    const totpCode = (await promptSecret('Authentication code: '))?.trim();
    if (!totpCode) throw new UsageError('this account needs an authentication code: pass --totp-code (the code your authenticator app shows, or a recovery code)');
    return client.call<User>('POST', '/auth/login', { ...body, totpCode });
  }
}

/**
 * The password: the first line of stdin with --password-stdin, else asked on the terminal without
 * echo when stdin is one. Piped stdin without the flag is refused rather than read, so a script
 * says what it feeds in.
 */
async function passwordOf(passwordStdin: boolean): Promise<string> {
  if (passwordStdin) return readLineFromStdin();
  const asked = process.stdin.isTTY ? await promptSecret('Password: ') : undefined;
  if (asked === undefined) throw new UsageError('no terminal to ask the password on: pass --password-stdin and pipe it in, so it stays out of shell history and `ps`');
  return asked;
}

/**
 * `cairn login` signs in with a password once, creates a personal API token for this machine and
 * stores only that token (mode 0600); `cairn logout` revokes it and forgets it.
 */
export function registerSession(program: Command): void {
  withGlobals(program.command('login'))
    .description('sign in; keeps an API token for this machine')
    .requiredOption('--username <name>', 'username or email')
    .option('--password-stdin', 'read the password from the first line of stdin; asked on the terminal (not shown) otherwise')
    .option('--totp-code <code>', 'the authentication code (or a recovery code) if the account has two-factor authentication on; asked on the terminal otherwise')
    .action(async (opts: { username: string; passwordStdin?: boolean; totpCode?: string }, cmd: Command) => {
      const stored = await loadCredentials();
      const url = globalsOf(cmd).url || process.env.CAIRN_URL || stored?.url || 'http://127.0.0.1:8080';
      const caPath = caPathOf(globalsOf(cmd), stored?.url === url ? stored.ca : undefined);
      const ca = await readCa(caPath);
      const password = await passwordOf(opts.passwordStdin === true);
      const login = await signIn(new CliClient(url, {}, ca), { username: opts.username, password, ...(opts.totpCode ? { totpCode: opts.totpCode } : {}) });
      const cookie = /(__Host-cairn_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
      const session = new CliClient(url, { cookie }, ca);
      const token = await session.post<CreatedApiToken>('/me/tokens', { name: `cli@${hostname()}` });
      await session.post('/auth/logout');
      await saveCredentials({ url, token: token.token, tokenId: token.id, username: login.body.username, ...(caPath ? { ca: caPath } : {}) });
      process.stderr.write(`Logged in to ${url} as ${login.body.username}.\n`);
    });

  withGlobals(program.command('logout'))
    .description('revoke and forget the token `cairn login` stored')
    .action(async (_opts: unknown, cmd: Command) => {
      const stored = await loadCredentials();
      if (!stored) {
        process.stderr.write('Not logged in.\n');
        return;
      }
      // The stored token revokes itself; one that no longer works has nothing left to revoke.
      if (stored.tokenId) {
        await new CliClient(stored.url, { token: stored.token }, await readCa(caPathOf(globalsOf(cmd), stored.ca))).delete(`/me/tokens/${stored.tokenId}`).catch((e: unknown) => {
          if (!(e instanceof ApiError && e.status === 401)) throw e;
        });
      }
      await forgetCredentials();
      process.stderr.write(`Logged out of ${stored.url}.\n`);
    });

  withGlobals(program.command('whoami'))
    .description('the signed-in user')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, format } = await connect(cmd);
      print(formatOne(userView, await client.get<User>('/me'), format));
    });
}
