import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { TSchema } from 'typebox';
import type { AnyPage, AuditEventPage, CreatedApiToken, MembershipPage, PageOf, Role, RolePage, Team, TeamPage, ApiTokenPage, User, UserPage } from '../support/api-types.js';
import type { ApiClient, ApiResponse } from '../support/http.js';
import { allPages, expectProblem } from '../support/problems.js';

const cursorOf = (key: unknown) => Buffer.from(JSON.stringify({ v: 1, k: key })).toString('base64url');

/**
 * Walks a list two items a page, adding `addPerPage` new items after each page, and checks that
 * every item that existed before the walk, and every one added during it, is seen exactly once,
 * in creation order.
 */
async function walkWhileAdding<P extends PageOf<TSchema>>(list: (limit: number, cursor?: string) => Promise<ApiResponse<P>>, add: () => Promise<string>, keyOf: (item: P['items'][number]) => string) {
  const seen: string[] = [];
  const added: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await list(2, cursor);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.items.length).to.be.at.most(2);
    seen.push(...res.body.items.map(keyOf));
    cursor = res.body.nextCursor;
    if (cursor === undefined) break;
    if (page < 4) added.push(await add());
  }
  expect(new Set(seen).size, 'no duplicates').to.equal(seen.length);
  expect(seen, 'everything added between pages appears').to.include.members(added);
  return seen;
}

describe('paging', () => {
  let t: TestController;
  let admin: ApiClient;
  let n = 0;
  const users: string[] = [];
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  const newUser = async () => {
    const name = `user${n++}`;
    const res = await admin.post<User>('/users', { username: name, email: `${name}@example.com`, displayName: name, password: 'first-password-1' });
    expect(res.status).to.equal(201);
    users.push(res.body.id);
    return res.body.id;
  };

  describe('bounds', () => {
    const lists = ['/users', '/teams', '/roles', '/me/tokens', '/audit-events'];

    it('limit must be 1..200: 0, 201, -1 and non-integers are 400 naming query.limit; 1 and 200 work', async () => {
      for (const path of lists) {
        for (const bad of ['0', '201', '-1', '1.5', 'ten']) expectProblem(await admin.get(`${path}?limit=${bad}`), 400, 'invalid_request', 'query.limit');
        expect((await admin.get<AnyPage>(`${path}?limit=1`)).body.items).to.have.length.at.most(1);
        expect((await admin.get(`${path}?limit=200`)).status).to.equal(200);
      }
    });

    it('a cursor over 200 characters is 400 naming query.cursor', async () => {
      for (const path of lists) expectProblem(await admin.get(`${path}?cursor=${'a'.repeat(201)}`), 400, 'invalid_request', 'cursor');
    });

    it('garbage cursors are 400 invalid_request, never 500', async () => {
      const garbage = [
        'garbage', '%00', Buffer.from('{"v":2,"k":"x"}').toString('base64url'), Buffer.from('[]').toString('base64url'),
        cursorOf(5), cursorOf('x'), cursorOf(null), cursorOf({ a: 1 }), cursorOf('2:zzz'), cursorOf('0'),
      ];
      for (const path of lists) {
        for (const cursor of garbage) {
          const res = await admin.get(`${path}?cursor=${encodeURIComponent(cursor)}`);
          expect(res.status, `${path} cursor=${cursor}: ${res.text}`).to.be.oneOf([200, 400]);
          if (res.status === 400) expectProblem(res, 400, 'invalid_request', 'cursor');
        }
        // A cursor of the wrong type for this list is refused outright.
        expectProblem(await admin.get(`${path}?cursor=${path === '/audit-events' ? cursorOf('abc') : cursorOf(7)}`), 400, 'invalid_request', 'cursor');
      }
    });

    it('unknown query parameters are 400 naming the parameter', async () => {
      expectProblem(await admin.get('/users?page=2'), 400, 'invalid_request', 'query.page');
    });

    it('the default page size is 50', async () => {
      for (let i = 0; i < 51; i++) await admin.post('/teams', { name: `bulk-${i}` });
      const first = await admin.get<TeamPage>('/teams');
      expect(first.body.items).to.have.length(50);
      expect(first.body.nextCursor).to.be.a('string');
      const second = await admin.get<TeamPage>(`/teams?cursor=${first.body.nextCursor}`);
      expect(second.body.items).to.have.length(1);
      expect(second.body).not.to.have.property('nextCursor');
    });
  });

  describe('no gaps, no duplicates, creation order while items are added between pages', () => {
    it('users', async () => {
      for (let i = 0; i < 5; i++) await newUser();
      const before = (await allPages((c) => admin.get<UserPage>(`/users?limit=3${c ? `&cursor=${c}` : ''}`))).map((u) => u.id);
      const seen = await walkWhileAdding((limit, c) => admin.get<UserPage>(`/users?limit=${limit}${c ? `&cursor=${c}` : ''}`), newUser, (u) => u.id);
      expect(seen.slice(0, before.length)).to.deep.equal(before);
      const all = (await allPages((c) => admin.get<UserPage>(`/users?limit=200${c ? `&cursor=${c}` : ''}`))).map((u) => u.id);
      expect(seen).to.deep.equal(all);
    });

    it('teams (administrator and member views)', async () => {
      let i = 0;
      const addTeam = async () => (await admin.post<Team>('/teams', { name: `walk-${i++}` })).body.id;
      const seen = await walkWhileAdding((limit, c) => admin.get<TeamPage>(`/teams?limit=${limit}${c ? `&cursor=${c}` : ''}`), addTeam, (x) => x.id);
      const all = (await admin.get<TeamPage>('/teams?limit=200')).body.items.map((x) => x.id);
      expect(seen).to.deep.equal(all);

      const member = await createReadyUser(t, admin, 'walker');
      const joinNew = async () => {
        const id = await addTeam();
        expect((await admin.put(`/teams/${id}/members/${member.userId}`, { roleIds: [] })).status).to.equal(200);
        return id;
      };
      for (let k = 0; k < 5; k++) await joinNew();
      const mine = await walkWhileAdding((limit, c) => member.client.get<TeamPage>(`/teams?limit=${limit}${c ? `&cursor=${c}` : ''}`), joinNew, (x) => x.id);
      const joined = (await admin.get<TeamPage>('/teams?limit=200')).body.items.map((x) => x.id).slice(-mine.length);
      expect(mine).to.have.length.at.least(7);
      expect(mine).to.deep.equal(joined);
    });

    it('roles (built-in first, then custom ones in creation order)', async () => {
      let i = 0;
      const addRole = async () => (await admin.post<Role>('/roles', { name: `role-${i++}`, permissions: [] })).body.id;
      for (let k = 0; k < 5; k++) await addRole();
      const seen = await walkWhileAdding((limit, c) => admin.get<RolePage>(`/roles?limit=${limit}${c ? `&cursor=${c}` : ''}`), addRole, (x) => x.id);
      const all = (await admin.get<RolePage>('/roles?limit=200')).body.items;
      expect(seen).to.deep.equal(all.map((r) => r.id));
      expect(all.slice(0, 3).map((r) => r.name)).to.deep.equal(['viewer', 'operator', 'admin']);
      expect(all.slice(3).map((r) => r.name)).to.deep.equal(Array.from({ length: all.length - 3 }, (_, k) => `role-${k}`));
      expect(all.length - 3).to.be.at.least(7);
    });

    it('tokens', async () => {
      let i = 0;
      const addToken = async () => (await admin.post<CreatedApiToken>('/me/tokens', { name: `tok-${i++}` })).body.id;
      for (let k = 0; k < 5; k++) await addToken();
      const seen = await walkWhileAdding((limit, c) => admin.get<ApiTokenPage>(`/me/tokens?limit=${limit}${c ? `&cursor=${c}` : ''}`), addToken, (x) => x.id);
      const all = (await admin.get<ApiTokenPage>('/me/tokens?limit=200')).body.items;
      expect(all.map((x) => x.name)).to.deep.equal(Array.from({ length: all.length }, (_, k) => `tok-${k}`));
      expect(seen).to.deep.equal(all.map((x) => x.id));
      expect(seen.length).to.be.at.least(7);
    });

    it('members, in the order they joined, even when an older user joins later', async () => {
      const team = (await admin.post<Team>('/teams', { name: 'members-walk' })).body;
      // Join newest users first, so that joining order differs from user creation order.
      const pool = [...users].reverse();
      const join = async () => {
        const userId = pool.shift()!;
        expect((await admin.put(`/teams/${team.id}/members/${userId}`, { roleIds: [] })).status).to.equal(200);
        return userId;
      };
      const joined: string[] = [];
      for (let k = 0; k < 5; k++) joined.push(await join());
      const seen = await walkWhileAdding((limit, c) => admin.get<MembershipPage>(`/teams/${team.id}/members?limit=${limit}${c ? `&cursor=${c}` : ''}`), async () => {
        const id = await join();
        joined.push(id);
        return id;
      }, (m) => m.userId);
      expect(seen).to.deep.equal(joined);
    });

    it('audit events, newest first; events written between pages show up on a fresh search only', async () => {
      const first = await admin.get<AuditEventPage>('/audit-events?limit=5');
      const ids: number[] = first.body.items.map((e) => e.id);
      let cursor = first.body.nextCursor;
      while (cursor) {
        await admin.post('/teams', { name: `audit-walk-${ids.length}` });
        const page = await admin.get<AuditEventPage>(`/audit-events?limit=5&cursor=${cursor}`);
        ids.push(...page.body.items.map((e) => e.id));
        cursor = page.body.nextCursor;
      }
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
      expect(ids[ids.length - 1]).to.equal(1);
      // No gaps: every id from the first page's top down to 1.
      expect(ids).to.deep.equal(Array.from({ length: ids[0] }, (_, k) => ids[0] - k));
    });
  });
});
