import { optional, required } from '../args.js';
import { need, type CommandGroup } from '../command.js';

export const userCommands: CommandGroup = {
  name: 'users',
  summary: 'user accounts (global administrators)',
  verbs: {
    list: { usage: 'cairn users list', run: async (_a, c) => need(c).all('/users') },
    get: { usage: 'cairn users get USER_ID', run: async (a, c) => (await need(c).call('GET', `/users/${a.positionals[0]}`)).body },
    create: {
      usage: 'cairn users create --username NAME --email EMAIL --display-name NAME --password P [--admin]',
      run: async (a, c) => (await need(c).call('POST', '/users', {
        username: required(a, 'username'), email: required(a, 'email'),
        displayName: optional(a, 'display-name') ?? required(a, 'username'), password: required(a, 'password'),
        ...(a.values.admin ? { globalAdmin: true } : {}),
      })).body,
    },
    delete: { usage: 'cairn users delete USER_ID', run: async (a, c) => (await need(c).call('DELETE', `/users/${a.positionals[0]}`), { deleted: a.positionals[0] }) },
    'reset-password': {
      usage: 'cairn users reset-password USER_ID   (prints the one-time secret to hand to the user)',
      run: async (a, c) => (await need(c).call('POST', `/users/${a.positionals[0]}/password-reset`)).body,
    },
  },
};

export const teamCommands: CommandGroup = {
  name: 'teams',
  summary: 'teams and memberships',
  verbs: {
    list: { usage: 'cairn teams list', run: async (_a, c) => need(c).all('/teams') },
    create: { usage: 'cairn teams create --name NAME', run: async (a, c) => (await need(c).call('POST', '/teams', { name: required(a, 'name') })).body },
    delete: { usage: 'cairn teams delete TEAM_ID', run: async (a, c) => (await need(c).call('DELETE', `/teams/${a.positionals[0]}`), { deleted: a.positionals[0] }) },
    members: { usage: 'cairn teams members TEAM_ID', run: async (a, c) => need(c).all(`/teams/${a.positionals[0]}/members`) },
    'set-member': {
      usage: 'cairn teams set-member TEAM_ID USER_ID --role ROLE_ID [--role ROLE_ID ...]',
      run: async (a, c) => (await need(c).call('PUT', `/teams/${a.positionals[0]}/members/${a.positionals[1]}`, {
        roleIds: (a.values.role as string[] | undefined) ?? [],
      })).body,
    },
    'remove-member': {
      usage: 'cairn teams remove-member TEAM_ID USER_ID',
      run: async (a, c) => (await need(c).call('DELETE', `/teams/${a.positionals[0]}/members/${a.positionals[1]}`), { removed: a.positionals[1] }),
    },
  },
};

export const roleCommands: CommandGroup = {
  name: 'roles',
  summary: 'roles: sets of permissions',
  verbs: {
    list: { usage: 'cairn roles list', run: async (_a, c) => need(c).all('/roles') },
    create: {
      usage: 'cairn roles create --name NAME [--description TEXT] --permission P [--permission P ...]',
      run: async (a, c) => (await need(c).call('POST', '/roles', {
        name: required(a, 'name'), description: optional(a, 'description') ?? '', permissions: (a.values.permission as string[] | undefined) ?? [],
      })).body,
    },
    delete: { usage: 'cairn roles delete ROLE_ID', run: async (a, c) => (await need(c).call('DELETE', `/roles/${a.positionals[0]}`), { deleted: a.positionals[0] }) },
  },
};

export const tokenCommands: CommandGroup = {
  name: 'tokens',
  summary: 'your personal API tokens',
  verbs: {
    list: { usage: 'cairn tokens list', run: async (_a, c) => need(c).all('/me/tokens') },
    create: {
      usage: 'cairn tokens create --name NAME [--expires-at ISO_TIME]   (the secret is printed once)',
      run: async (a, c) => (await need(c).call('POST', '/me/tokens', {
        name: required(a, 'name'), ...(optional(a, 'expires-at') ? { expiresAt: optional(a, 'expires-at') } : {}),
      })).body,
    },
    revoke: { usage: 'cairn tokens revoke TOKEN_ID', run: async (a, c) => (await need(c).call('DELETE', `/me/tokens/${a.positionals[0]}`), { revoked: a.positionals[0] }) },
  },
};

export const auditCommands: CommandGroup = {
  name: 'audit',
  summary: 'search the audit log (global administrators)',
  verbs: {
    search: {
      usage: 'cairn audit search [--action A] [--target-kind K] [--target-id ID] [--outcome O] [--since T] [--until T] [--limit N]',
      async run(a, c) {
        const query = new URLSearchParams();
        for (const [flag, param] of [['action', 'action'], ['target-kind', 'targetKind'], ['target-id', 'targetId'], ['outcome', 'outcome'], ['since', 'since'], ['until', 'until'], ['limit', 'limit']]) {
          const v = optional(a, flag);
          if (v !== undefined) query.set(param, v);
        }
        return (await need(c).call('GET', `/audit-events?${query.toString()}`)).body;
      },
    },
  },
};
