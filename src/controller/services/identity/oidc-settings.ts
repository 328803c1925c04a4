import { openSealed } from '../../security/sealed-secret.js';
import type { Static } from 'typebox';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest, notFound } from '../../core/errors.js';
import type { PutOidcSetting } from '../../schemas/oidc.js';
import type { Shared } from '../../store/collection.js';
import type { UserDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { Access } from './access.js';
import type { AccessEvents } from './access-events.js';
import { causeOf, type OidcClientIdentity, type OidcClients } from './oidc-client.js';

const settingId = 'oidc';
/** The SecretBox purpose of the client secret: a sealed value moved to another field does not open. */
const secretPurpose = 'oidc:client-secret';
const defaultScopes = ['openid', 'profile', 'email'];

export interface OidcTeamMapping {
  group: string;
  teamId: string;
  roleIds: string[];
}

/** The setting as the settings collection keeps it: the client secret only sealed. */
interface StoredOidc {
  issuer: string;
  clientId: string;
  sealedClientSecret: string;
  displayName: string;
  scopes: string[];
  groupsClaim: string;
  adminGroups: string[];
  teamMappings: OidcTeamMapping[];
  allowPasswordLogin: boolean;
  redirectUri?: string;
}

/** The setting with its secret opened, for signing in; never leaves the services. */
export type OidcConfig = Omit<StoredOidc, 'sealedClientSecret'> & OidcClientIdentity;

const view = (s: StoredOidc, updatedAt: string) => ({
  issuer: s.issuer,
  clientId: s.clientId,
  displayName: s.displayName,
  scopes: s.scopes,
  groupsClaim: s.groupsClaim,
  adminGroups: s.adminGroups,
  teamMappings: s.teamMappings,
  allowPasswordLogin: s.allowPasswordLogin,
  ...(s.redirectUri ? { redirectUri: s.redirectUri } : {}),
  updatedAt,
});

/**
 * The single sign-on setting (one OpenID provider), kept in the settings collection. Global
 * administrators set it; saving checks the provider answers discovery, so a typo is refused then
 * rather than at the first sign-in.
 */
export class OidcSettings {
  constructor(private readonly deps: ServiceDeps, private readonly access: Access, private readonly clients: OidcClients, private readonly accessEvents: AccessEvents) {}

  async get(caller: Caller) {
    this.access.requireGlobalAdmin(caller);
    const doc = await this.deps.repos.settings.findById(settingId);
    if (!doc) throw notFound('single sign-on setting');
    return view(doc.value as unknown as StoredOidc, doc.updatedAt);
  }

  async put(caller: Caller, input: Static<typeof PutOidcSetting>, audit: AuditScope) {
    this.access.requireGlobalAdmin(caller);
    audit.target(settingId).detail({ issuer: input.issuer, clientId: input.clientId, allowPasswordLogin: input.allowPasswordLogin ?? true });
    const teamMappings = input.teamMappings ?? [];
    await this.requireTeamsAndRoles(teamMappings);
    try {
      await this.clients.discover(input);
    } catch (e) {
      throw invalidRequest(`body.issuer: discovery at ${new URL('.well-known/openid-configuration', withSlash(input.issuer)).href} failed: ${causeOf(e)}`);
    }
    const stored: StoredOidc = {
      issuer: input.issuer,
      clientId: input.clientId,
      sealedClientSecret: this.deps.secrets.seal(input.clientSecret, secretPurpose),
      displayName: input.displayName,
      scopes: input.scopes?.includes('openid') ? input.scopes : ['openid', ...(input.scopes ?? defaultScopes.slice(1))],
      groupsClaim: input.groupsClaim ?? 'groups',
      adminGroups: input.adminGroups ?? [],
      teamMappings,
      allowPasswordLogin: input.allowPasswordLogin ?? true,
      ...(input.redirectUri ? { redirectUri: input.redirectUri } : {}),
    };
    const updatedAt = nowIso(this.deps);
    const doc = { _id: settingId, value: { ...stored }, updatedAt };
    if (!(await this.deps.repos.settings.replace({ _id: settingId }, doc))) await this.deps.repos.settings.insert(doc);
    if (!stored.allowPasswordLogin) audit.detail({ passwordSessionsEnded: await this.endPasswordSessions() });
    return view(stored, updatedAt);
  }

  /**
   * Ends the sessions signed in with a password by users who may no longer use one (all but global
   * administrators), so turning password sign-in off takes effect at once, not at their expiry.
   */
  private async endPasswordSessions(): Promise<number> {
    const { repos } = this.deps;
    const allowed = new Set((await repos.users.find({ globalAdmin: true })).map((u) => u._id));
    const ended = (await repos.sessions.find({ oidc: { $exists: false } })).filter((s) => !allowed.has(s.userId));
    if (ended.length === 0) return 0;
    await repos.sessions.delete({ _id: { $in: ended.map((s) => s._id) } });
    for (const userId of new Set(ended.map((s) => s.userId))) this.accessEvents.publish({ userId, kind: 'session_ended' });
    return ended.length;
  }

  async delete(caller: Caller, audit: AuditScope): Promise<void> {
    this.access.requireGlobalAdmin(caller);
    audit.target(settingId);
    audit.detail({ existed: (await this.deps.repos.settings.delete({ _id: settingId })) > 0 });
  }

  /** The setting with its secret opened, or undefined when single sign-on is not set up. */
  async config(): Promise<OidcConfig | undefined> {
    const doc = await this.deps.repos.settings.findById(settingId);
    if (!doc) return undefined;
    const { sealedClientSecret, ...rest } = doc.value as unknown as StoredOidc;
    return { ...rest, clientSecret: openSealed(this.deps.secrets, sealedClientSecret, secretPurpose, 'A global administrator saves the single sign-on setting again with its client secret (PUT /auth/oidc).') };
  }

  /** What the sign-in page offers. */
  async methods() {
    const doc = await this.deps.repos.settings.findById(settingId);
    if (!doc) return { password: true };
    const s = doc.value as unknown as StoredOidc;
    return { password: s.allowPasswordLogin, oidc: { displayName: s.displayName, loginUrl: '/api/v1/auth/oidc/login' } };
  }

  /**
   * Whether the user may sign in with a password. Global administrators always may: that is how
   * an operator gets in while the provider is down.
   */
  async allowsPassword(user: Shared<UserDoc>): Promise<boolean> {
    if (user.globalAdmin) return true;
    const doc = await this.deps.repos.settings.findById(settingId);
    return !doc || (doc.value as unknown as StoredOidc).allowPasswordLogin;
  }

  private async requireTeamsAndRoles(mappings: OidcTeamMapping[]): Promise<void> {
    const { teams, roles } = this.deps.repos;
    const teamIds = new Set((await teams.find({ _id: { $in: [...new Set(mappings.map((m) => m.teamId))] } })).map((t) => t._id));
    const roleIds = new Set((await roles.find({ _id: { $in: [...new Set(mappings.flatMap((m) => m.roleIds))] } })).map((r) => r._id));
    for (const [i, m] of mappings.entries()) {
      if (!teamIds.has(m.teamId)) throw invalidRequest(`body.teamMappings[${i}].teamId: no team ${m.teamId}.`);
      const missing = m.roleIds.find((id) => !roleIds.has(id));
      if (missing) throw invalidRequest(`body.teamMappings[${i}].roleIds: no role ${missing}.`);
    }
  }
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
