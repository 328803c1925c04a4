import { expect } from 'chai';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';

describe('smoke: setup and sign-in through real HTTP', () => {
  let t: TestController;
  before(async () => {
    t = await startTestController();
  });
  after(async () => t.dispose());

  it('sets up the first administrator and answers GET /me with the session cookie', async () => {
    const { admin } = await setupAdmin(t);
    const me = await admin.get('/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ username: 'admin', globalAdmin: true, passwordChangeRequired: false });
  });
});
