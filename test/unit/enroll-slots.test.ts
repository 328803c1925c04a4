import { expect } from 'chai';
import { EnrollSlots } from '../../src/controller/link/enroll-slots.js';

describe('Enroll slots', () => {
  it('lets `running` work at once, queues `waiting` first come first served, and refuses beyond', async () => {
    const slots = new EnrollSlots(2, 2);
    const order: number[] = [];
    expect(await slots.acquire()).to.equal(true);
    expect(await slots.acquire()).to.equal(true);
    const third = slots.acquire().then((ok) => order.push(3) && ok);
    const fourth = slots.acquire().then((ok) => order.push(4) && ok);
    expect(await slots.acquire()).to.equal(false);
    slots.release();
    slots.release();
    expect(await Promise.all([third, fourth])).to.deep.equal([true, true]);
    expect(order).to.deep.equal([3, 4]);
    slots.release();
    slots.release();
    expect(await slots.acquire()).to.equal(true);
    expect(await slots.acquire()).to.equal(true);
  });
});
