import { expect } from 'chai';
import type { AuditEventPage, CreatedApiToken, MembershipPage, RolePage, Team, User } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { browseSignIn, CookieJar, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

const sessionCookieName = '__Host-cairn_session';
const recheckSeconds = 60;

/**
 * What the provider says about a signed-in user counts within `--oidc-recheck-seconds` (here 60,
 * passed by the Controller's clock; the provider's own clock is real), for sessions and API tokens
 * alike, against the real provider of oidc.test.ts.
 */
describe('single sign-on: the provider\'s word is asked again for sessions and tokens', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let op: TestOidcProvider;
  let team: Team;
  let viewerId: string;
  let operatorId: string;

  async function signIn(sub: string) {
    const jar = new CookieJar();
    expect(await browseSignIn(`${t.baseUrl}/api/v1/auth/oidc/login`, t.baseUrl, sub, jar)).to.equal('/');
    const session = t.api.withCookie(`${sessionCookieName}=${jar.get(t.baseUrl, sessionCookieName)}`);
    const token = (await session.post<CreatedApiToken>('/me/tokens', { name: `${sub}-script` })).body.token;
    return { session, token: t.api.withToken(token) };
  }
  const me = async (client: ApiClient) => (await client.get<User>('/me'));
  const roleIdsOf = async (userId: string) =>
    (await admin.get<MembershipPage>(`/teams/${team.id}/members?limit=200`)).body.items.find((m) => m.userId === userId)?.roleIds;
  const pastTheWindow = () => t.clock.advance((recheckSeconds + 1) * 1000);

  before(async () => {
    t = await startTestController({ extraArgs: ['--oidc-recheck-seconds', String(recheckSeconds)] });
    ({ admin } = await setupAdmin(t));
    op = await startOidcProvider([`${t.baseUrl}/api/v1/auth/oidc/callback`]);
    team = (await admin.post<Team>('/teams', { name: 'Builders' })).body;
    const roles = (await admin.get<RolePage>('/roles?limit=200')).body.items;
    viewerId = roles.find((r) => r.name === 'viewer')!.id;
    operatorId = roles.find((r) => r.name === 'operator')!.id;
    const put = await admin.put('/auth/oidc', {
      issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, displayName: 'Example SSO',
      redirectUri: `${t.baseUrl}/api/v1/auth/oidc/callback`, adminGroups: ['cairn-admins'],
      teamMappings: [{ group: 'builders', teamId: team.id, roleIds: [viewerId] }, { group: 'builder-ops', teamId: team.id, roleIds: [operatorId] }],
    });
    expect(put.status, put.text).to.equal(200);
  });
  after(async () => {
    await op.close();
    await t.dispose();
  });

  it('a user removed at the provider loses its session and its tokens within the window', async () => {
    op.users.set('sub-dave', { sub: 'sub-dave', preferred_username: 'dave', groups: ['builders'] });
    const dave = await signIn('sub-dave');
    pastTheWindow();
    expect((await me(dave.session)).status, 'a refresh the provider grants keeps the session').to.equal(200);
    expect((await me(dave.token)).status).to.equal(200);
    op.users.delete('sub-dave');
    expect((await me(dave.session)).status, 'within the window the last word stands').to.equal(200);
    pastTheWindow();
    expect((await me(dave.token)).status, 'the token asks with the latest session, which the provider refuses').to.equal(401);
    expect((await me(dave.session)).status).to.equal(401);
    const events = (await admin.get<AuditEventPage>('/audit-events?action=auth.oidc.revalidate&limit=5')).body.items;
    expect(events[0]).to.include({ actorKind: 'SYSTEM', outcome: 'DENIED' });
    expect(events[0].details).to.include({ sessionEnded: true });
  });

  it('a change of groups moves global administration and team roles within the window, for sessions and tokens', async () => {
    op.users.set('sub-erin', { sub: 'sub-erin', preferred_username: 'erin', groups: ['cairn-admins', 'builders'] });
    const erin = await signIn('sub-erin');
    const id = (await me(erin.session)).body.id;
    expect((await me(erin.session)).body.globalAdmin).to.equal(true);
    op.users.get('sub-erin')!.groups = ['builder-ops'];
    pastTheWindow();
    expect((await me(erin.session)).body.globalAdmin).to.equal(false);
    expect(await roleIdsOf(id)).to.deep.equal([operatorId]);
    expect((await me(erin.token)).body.globalAdmin).to.equal(false);
    // The token alone, no session request: its owner's standing is renewed with the latest session's refresh token.
    op.users.get('sub-erin')!.groups = ['cairn-admins'];
    pastTheWindow();
    expect((await me(erin.token)).body.globalAdmin).to.equal(true);
    expect(await roleIdsOf(id)).to.equal(undefined);
  });

  it('turning password sign-in off ends the password sessions of all but global administrators', async () => {
    const { client: frank } = await createReadyUser(t, admin, 'frank');
    expect((await me(frank)).status).to.equal(200);
    const current = (await admin.get<Record<string, unknown>>('/auth/oidc')).body;
    const { updatedAt: _u, ...setting } = current;
    const put = await admin.put('/auth/oidc', { ...setting, clientSecret: op.clientSecret, allowPasswordLogin: false });
    expect(put.status, put.text).to.equal(200);
    expect((await me(frank)).status).to.equal(401);
    expect((await me(admin)).status, 'a global administrator stays signed in').to.equal(200);
  });
});
