import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { enroll } from '../../src/agent/link/enroll.js';
import { newEnrollmentAttemptId } from '../../src/agent/link/enrollment-attempt.js';
import type { EnrollmentIssued, PasswordResetIssued, User } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';

const insecure = grpc.credentials.createInsecure();
const jti = (credential: string) => (JSON.parse(Buffer.from(credential.split('.')[1], 'base64url').toString()) as { jti: string }).jti;

/**
 * One-time secrets redeemed several times at once on the MongoDB adapter: one use wins.
 * An Agent whose first Enroll seemed lost sends the same attempt again while the first is still
 * being answered: both answers must carry one credential id, or the one the Node does not keep is
 * refused when the Agent dials. On FerretDB a plain conditional write checks its filter apart from
 * the write, so both redemptions could pass it (seen as a different credential id in a run of the
 * whole suite on FerretDB); the token's use is written over its version instead, and so is a password reset's.
 */
const mongo = testMongo;
if (!mongo) console.log('concurrent redemptions of one-time secrets on MongoDB: not run (no MongoDB or FerretDB for the tests)');
else {
  describe(`concurrent redemptions of one-time secrets (${mongo.kind})`, function () {
    this.timeout(120_000);
    const db = freshTestDatabase(mongo, 'cairn_enroll_race');
    let t: TestController;
    let admin: ApiClient;

    before(async () => {
      t = await startTestController({ mongodbUri: await db.uri() });
      ({ admin } = await setupAdmin(t));
    });
    after(async () => {
      await (t as TestController | undefined)?.dispose();
      await db.drop();
    });

    const call = (enrollmentToken: string, enrollmentAttemptId: string) =>
      enroll(`127.0.0.1:${t.controller.grpcPort}`, insecure, { enrollmentToken, hostname: 'h', agentVersion: '1', enrollmentAttemptId })
        .then((answer) => ({ ok: true as const, answer }), (err: unknown) => ({ ok: false as const, err }));

    it('eight at once with the same attempt, twelve tokens: every answer carries the credential id the Node keeps', async () => {
      for (let round = 0; round < 12; round++) {
        const { node, enrollmentToken } = (await admin.post<EnrollmentIssued>('/nodes', { name: `race-${round}` })).body;
        const attemptId = newEnrollmentAttemptId();
        const answers = await Promise.all(Array.from({ length: 8 }, () => call(enrollmentToken, attemptId)));
        const ids = answers.map((a) => (a.ok ? jti(a.answer.credential) : `refused: ${String(a.err)}`));
        expect(new Set(ids).size, `round ${round}: ${ids.join(', ')}`).to.equal(1);
        expect(await t.controller.services.enrollment.authenticate((answers[0] as { answer: { credential: string } }).answer.credential)).to.equal(node.id);
      }
    });

    it('eight at once with different attempts: exactly one is answered', async () => {
      for (let round = 0; round < 6; round++) {
        const { enrollmentToken } = (await admin.post<EnrollmentIssued>('/nodes', { name: `others-${round}` })).body;
        const answers = await Promise.all(Array.from({ length: 8 }, () => call(enrollmentToken, newEnrollmentAttemptId())));
        expect(answers.filter((a) => a.ok), `round ${round}`).to.have.length(1);
      }
    });

    it('a password reset redeemed six times at once: exactly one sets the password', async () => {
      // Three rounds of six: the refusals stay under the 20 attempts an address has per 15 minutes.
      for (let round = 0; round < 3; round++) {
        const user = (await admin.post<User>('/users', { username: `reset-${round}`, email: `reset-${round}@example.com`, displayName: `Reset ${round}`, password: 'first-pass-123' })).body;
        const { token } = (await admin.post<PasswordResetIssued>(`/users/${user.id}/password-reset`)).body;
        const statuses = await Promise.all(Array.from({ length: 6 }, (_, i) => t.api.post('/auth/password-reset', { token, newPassword: `reset-pass-${round}-${i}` }).then((r) => r.status)));
        expect(statuses.filter((s) => s === 204), `round ${round}: ${statuses.join(', ')}`).to.have.length(1);
        expect(statuses.filter((s) => s !== 204 && s !== 400), `round ${round}: ${statuses.join(', ')}`).to.deep.equal([]);
      }
    });
  });
}
