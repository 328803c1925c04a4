import Type from 'typebox';
import { DateTime, Uuid, PrintableName } from './common.js';
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

export const CreateApiToken = Type.Object({
  name: PrintableName(100),
  expiresAt: Type.Optional(DateTime),
}, { additionalProperties: false });

export const ApiToken = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: DateTime,
  expiresAt: Type.Optional(DateTime),
  lastUsedAt: Type.Optional(DateTime),
});

export const CreatedApiToken = Type.Object({
  id: Uuid,
  name: Type.String(),
  token: Type.String({ description: 'The secret (`cairn_pat_` + 40 base62 characters), shown only once.' }),
  createdAt: DateTime,
  expiresAt: Type.Optional(DateTime),
});
