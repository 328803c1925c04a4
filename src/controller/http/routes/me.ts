import { ApiToken, CreateApiToken, CreatedApiToken } from '../../schemas/auth.js';
import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateSshKey, SshKey, SshKeyList, maxSshKeysPerUser } from '../../schemas/sftp.js';
import { User } from '../../schemas/users.js';
import type { Services } from '../../services/index.js';
import { objectJson } from '../page-json.js';
import { route } from '../route.js';

export const meRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/me', tag: 'me', auth: 'signed-in', status: 200,
    summary: 'The signed-in user.', response: User, serialize: objectJson,
    handler: async ({ caller }) => s.users.get(caller, caller.user._id),
  }),
  route({
    method: 'POST', path: '/me/tokens', tag: 'me', status: 201,
    summary: 'Create a personal API token; the secret is in this answer only.',
    body: CreateApiToken, response: CreatedApiToken,
    audit: { action: 'token.create', targetKind: 'api_token' },
    handler: async ({ caller, body, audit }) => s.tokens.create(caller, body, audit),
  }),
  route({
    method: 'GET', path: '/me/tokens', tag: 'me', status: 200,
    summary: 'Your API tokens (never their secrets).', description: 'Called with a scoped API token: that token alone.', query: PageQuery, response: Paged(ApiToken),
    handler: async ({ caller, query }) => s.tokens.list(caller, query),
  }),
  route({
    method: 'DELETE', path: '/me/tokens/{tokenId}', tag: 'me', status: 204,
    summary: 'Revoke one of your API tokens.', params: IdParams('tokenId'),
    audit: { action: 'token.delete', targetKind: 'api_token' },
    handler: async ({ caller, params, audit }) => s.tokens.revoke(caller, params.tokenId, audit),
  }),
  route({
    method: 'POST', path: '/me/ssh-keys', tag: 'me', status: 201,
    summary: 'Add an SSH public key to sign in to SFTP with (docs/sftp.md).',
    description: `At most ${maxSshKeysPerUser} keys per user (\`conflict\` past it, and for a key added already).`,
    body: CreateSshKey, response: SshKey, errors: ['conflict'],
    audit: { action: 'ssh_key.create', targetKind: 'ssh_key' },
    handler: async ({ caller, body, audit }) => s.sshKeys.create(caller, body, audit),
  }),
  route({
    method: 'GET', path: '/me/ssh-keys', tag: 'me', status: 200,
    summary: 'Your SSH public keys for SFTP.', response: SshKeyList,
    handler: async ({ caller }) => s.sshKeys.list(caller),
  }),
  route({
    method: 'DELETE', path: '/me/ssh-keys/{keyId}', tag: 'me', status: 204,
    summary: 'Remove one of your SSH public keys; SFTP sessions it opened stay open until they end.', params: IdParams('keyId'),
    audit: { action: 'ssh_key.delete', targetKind: 'ssh_key' },
    handler: async ({ caller, params, audit }) => s.sshKeys.remove(caller, params.keyId, audit),
  }),
];
