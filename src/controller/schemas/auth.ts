import Type from 'typebox';
import { DateTime, Uuid, PrintableName } from './common.js';
import { PermissionValue } from './roles.js';
import { TotpCode } from './totp.js';
import { Password } from './users.js';

export const Login = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 254, description: 'Username or email.' }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
  totpCode: Type.Optional(TotpCode),
}, { additionalProperties: false });

export const ChangePassword = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 256 }),
  newPassword: Password,
  revokeTokens: Type.Optional(Type.Boolean({ description: 'Also end every API token of the user (the other sessions end always). Default false.' })),
}, { additionalProperties: false });

export const RedeemPasswordReset = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  newPassword: Password,
}, { additionalProperties: false });

const scopeFields = {
  permissions: Type.Optional(Type.Array(PermissionValue, {
    uniqueItems: true, maxItems: 64,
    description: 'Team permissions the token may use (a scoped token); absent: everything its owner may do. Global administrator powers never pass to a scoped token.',
  })),
  teamIds: Type.Optional(Type.Array(Uuid, {
    uniqueItems: true, maxItems: 100,
    description: 'The only teams the token may act in (a scoped token); absent: every team its owner is a member of (for a global administrator too: acting in every team is administration, which never passes to a scoped token).',
  })),
};

export const CreateApiToken = Type.Object({
  name: PrintableName(100),
  expiresAt: Type.Optional(DateTime),
  ...scopeFields,
}, { additionalProperties: false });

export const ApiToken = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: DateTime,
  expiresAt: Type.Optional(DateTime),
  lastUsedAt: Type.Optional(DateTime),
  ...scopeFields,
});

export const CreatedApiToken = Type.Object({
  id: Uuid,
  name: Type.String(),
  token: Type.String({ description: 'The secret (`cairn_pat_` + 40 base62 characters), shown only once.' }),
  createdAt: DateTime,
  expiresAt: Type.Optional(DateTime),
  ...scopeFields,
});
