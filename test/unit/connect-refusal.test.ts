import { status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { StoreUnavailableError } from '../../src/controller/core/store-unavailable.js';
import { connectRefusalOf } from '../../src/controller/link/connect-refusal.js';
import { ConnectRefusedError } from '../../src/controller/link/errors.js';

describe('connectRefusalOf: how a Connect whose credential check threw is answered', () => {
  it('a credential found wanting is UNAUTHENTICATED, with its reason', () => {
    expect(connectRefusalOf(new ConnectRefusedError('node_revoked'))).to.deep.equal({ code: status.UNAUTHENTICATED, reason: 'node_revoked', fault: false });
  });

  it('a store that does not answer is UNAVAILABLE (the Agent retries on its ordinary backoff), not a refused credential', () => {
    expect(connectRefusalOf(new StoreUnavailableError(new Error('connection closed')))).to.deep.equal({ code: status.UNAVAILABLE, reason: 'store_unavailable', fault: false });
  });

  it('anything else is this Controller\'s fault: INTERNAL, logged as an error', () => {
    expect(connectRefusalOf(new TypeError('x is undefined'))).to.deep.equal({ code: status.INTERNAL, reason: 'internal', fault: true });
  });
});
