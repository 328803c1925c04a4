import { hostname } from 'node:os';
import { optional, required } from '../args.js';
import { CliClient, forgetCredentials, loadCredentials, saveCredentials } from '../client.js';
import { need, type CommandGroup } from '../command.js';
import { readLineFromStdin } from '../read-secret.js';

/**
 * `cairn login` signs in with a password once, creates a personal API token for this machine and
 * stores only that token; `cairn logout` revokes it and forgets it.
 */
export const sessionCommands: CommandGroup = {
  name: 'auth',
  summary: 'sign in and out',
  verbs: {
    login: {
      usage: 'cairn auth login --url URL --username NAME (--password-stdin | --password P)',
      anonymous: true,
      async run(args) {
        const url = optional(args, 'url') || process.env.CAIRN_URL || 'http://127.0.0.1:8080';
        const username = required(args, 'username');
        const password = args.values['password-stdin'] ? await readLineFromStdin() : required(args, 'password');
        const anonymous = new CliClient(url, {});
        const login = await anonymous.call('POST', '/auth/login', { username, password });
        const cookie = /(__Host-cairn_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
        const session = new CliClient(url, { cookie });
        const token = await session.call<{ id: string; token: string }>('POST', '/me/tokens', { name: `cli@${hostname()}` });
        await session.call('POST', '/auth/logout');
        await saveCredentials({ url, token: token.body.token, tokenId: token.body.id });
        return { signedIn: username, url };
      },
    },
    logout: {
      usage: 'cairn auth logout',
      async run(_args, client) {
        const stored = await loadCredentials();
        if (stored?.tokenId) await need(client).call('DELETE', `/me/tokens/${stored.tokenId}`);
        await forgetCredentials();
        return { signedOut: true };
      },
    },
    whoami: {
      usage: 'cairn auth whoami',
      run: async (_args, client) => (await need(client).call('GET', '/me')).body,
    },
    password: {
      usage: 'cairn auth password --password-stdin   (reads the current, then the new password, one per line)',
      async run(_args, client) {
        const currentPassword = await readLineFromStdin();
        const newPassword = await readLineFromStdin();
        await need(client).call('POST', '/me/password', { currentPassword, newPassword });
        return { passwordChanged: true };
      },
    },
  },
};
