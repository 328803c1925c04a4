import Type from 'typebox';
import { DateTime, PrintableName, Uuid } from './common.js';

const GroupName = Type.String({ minLength: 1, maxLength: 256, description: 'A group as the provider names it in the groups claim.' });
/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
const Scope = Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' });
const HttpUrl = (description: string) => Type.String({ format: 'uri', pattern: '^https?://', maxLength: 500, description });

export const OidcTeamMapping = Type.Object({
  group: GroupName,
  teamId: Uuid,
  roleIds: Type.Array(Uuid, { uniqueItems: true, maxItems: 50, description: 'The roles members of the group hold in the team.' }),
}, { additionalProperties: false });

export const PutOidcSetting = Type.Object({
  issuer: HttpUrl('The provider\'s issuer; `<issuer>/.well-known/openid-configuration` must answer. `http:` only for a loopback address.'),
  clientId: Type.String({ minLength: 1, maxLength: 256 }),
  clientSecret: Type.String({ minLength: 1, maxLength: 1024, description: 'Stored encrypted; never shown again.' }),
  displayName: PrintableName(100, 'Shown on the sign-in button: `Sign in with <displayName>`.'),
  scopes: Type.Optional(Type.Array(Scope, { uniqueItems: true, maxItems: 20, description: 'Default `["openid", "profile", "email"]`; `openid` is always asked for.' })),
  groupsClaim: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The claim listing the user\'s groups (ID token or userinfo). Default `groups`.' })),
  adminGroups: Type.Optional(Type.Array(GroupName, { uniqueItems: true, maxItems: 100, description: 'Members of any of these groups are global administrators, set at every sign-in.' })),
  teamMappings: Type.Optional(Type.Array(OidcTeamMapping, { maxItems: 200, description: 'Team memberships set at every sign-in; a mapped team the user\'s groups no longer map to is left.' })),
  allowPasswordLogin: Type.Optional(Type.Boolean({ description: 'Default true. When false, only global administrators may still sign in with a password.' })),
  redirectUri: Type.Optional(HttpUrl('Where the provider sends the browser back; default `<--public-url>/api/v1/auth/oidc/callback`.')),
}, { additionalProperties: false });

export const OidcSetting = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  displayName: Type.String(),
  scopes: Type.Array(Type.String()),
  groupsClaim: Type.String(),
  adminGroups: Type.Array(Type.String()),
  teamMappings: Type.Array(Type.Object({ group: Type.String(), teamId: Uuid, roleIds: Type.Array(Uuid) })),
  allowPasswordLogin: Type.Boolean(),
  redirectUri: Type.Optional(Type.String()),
  updatedAt: DateTime,
}, { description: 'The single sign-on setting; the client secret is never shown.' });

export const AuthMethods = Type.Object({
  password: Type.Boolean({ description: 'Whether password sign-in is open to everyone (global administrators always keep it).' }),
  oidc: Type.Optional(Type.Object({
    displayName: Type.String(),
    loginUrl: Type.String({ description: 'Where the browser goes to sign in with the provider.' }),
  })),
});

/** What the provider sends back; other parameters (Keycloak's `session_state`) are let through. */
export const OidcCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2048 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  iss: Type.Optional(Type.String({ maxLength: 500 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
});
