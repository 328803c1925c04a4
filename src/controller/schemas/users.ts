import Type, { type Static } from 'typebox';
import { globalPermissionValues } from '../core/permission-names.js';
import { DateTime, Uuid, PrintableName } from './common.js';

export const Username = Type.String({
  minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
  description: 'Letters, digits, `_`, `.` and `-`, starting with a letter or digit; unique regardless of case.',
});
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const DisplayName = PrintableName(100);
export const Password = Type.String({ minLength: 8, maxLength: 256, description: '8 to 256 characters.' });
export const GlobalPermissions = Type.Array(Type.Enum(globalPermissionValues), { uniqueItems: true });

export const User = Type.Object({
  id: Uuid,
  username: Type.String(),
  email: Type.String(),
  displayName: Type.String(),
  globalAdmin: Type.Boolean(),
  globalPermissions: Type.Array(Type.String()),
  passwordChangeRequired: Type.Boolean({ description: 'While true, only GET /me, POST /me/password and POST /auth/logout work.' }),
  totpEnabled: Type.Boolean({ description: 'Whether signing in with a password also needs a TOTP code (or a recovery code).' }),
  createdAt: DateTime,
});
export type User = Static<typeof User>;

export const CreateUser = Type.Object({
  username: Username,
  email: Email,
  displayName: DisplayName,
  password: Password,
  globalAdmin: Type.Optional(Type.Boolean()),
  globalPermissions: Type.Optional(GlobalPermissions),
}, { additionalProperties: false });

export const UpdateUser = Type.Object({
  email: Type.Optional(Email),
  displayName: Type.Optional(DisplayName),
  globalAdmin: Type.Optional(Type.Boolean()),
  globalPermissions: Type.Optional(GlobalPermissions),
}, { additionalProperties: false, minProperties: 1 });

export const PasswordResetIssued = Type.Object({
  token: Type.String({ description: 'The link\'s secret, shown only once.' }),
  expiresAt: DateTime,
});
