import { expect } from 'chai';
import { MongoClient, MongoDriverError, MongoNetworkError, MongoOperationTimeoutError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { StoreUnavailableError } from '../../src/controller/core/store-unavailable.js';
import { toDomainError } from '../../src/controller/http/problem.js';
import { DuplicateKeyError } from '../../src/controller/store/collection.js';
import { assertDefinedFilter, UndefinedInFilterError, withoutUndefined } from '../../src/controller/store/document-rules.js';
import { mongoClientOptions } from '../../src/controller/store/mongo/mongo-client-options.js';
import { duplicateFieldOf, mapDriverError, singleIdOf } from '../../src/controller/store/mongo/mongo-documents.js';

const duplicate = (fields: Record<string, unknown>) => new MongoServerError({ code: 11000, ...fields });

describe('MongoDB adapter rules (no server needed)', () => {
  it('documents lose undefined fields at every depth; arrays keep their length', () => {
    const doc = { _id: 'a', keep: 1, gone: undefined, nested: { x: undefined, y: null, deeper: { z: undefined, w: 'w' } }, list: [1, undefined, { q: undefined }] };
    expect(withoutUndefined(doc)).to.deep.equal({ _id: 'a', keep: 1, nested: { y: null, deeper: { w: 'w' } }, list: [1, null, {}] });
    const at = new Date(0);
    expect(withoutUndefined({ at }).at).to.equal(at);
  });

  it('filters naming undefined are refused with the path, inside $and/$or too', () => {
    expect(() => assertDefinedFilter({ teamId: undefined })).to.throw(UndefinedInFilterError, 'teamId');
    expect(() => assertDefinedFilter({ $or: [{ a: 1 }, { b: { $in: [1] }, c: undefined }] })).to.throw(UndefinedInFilterError, '$or.1.c');
    expect(() => assertDefinedFilter({ n: { $gte: undefined } })).to.throw(UndefinedInFilterError, 'n.$gte');
    expect(() => assertDefinedFilter({ a: null, b: { $exists: false }, c: [1, 2] })).to.not.throw();
  });

  it('single-document writes are recognised by a string _id', () => {
    expect(singleIdOf({ _id: 'x', term: 3 })).to.equal('x');
    expect(singleIdOf({ _id: { $in: ['x'] } })).to.equal(undefined);
    expect(singleIdOf({ serverId: 'x' })).to.equal(undefined);
  });

  it('a duplicate key names its field from keyPattern, keyValue, or the index in the message', () => {
    expect(duplicateFieldOf(duplicate({ keyPattern: { nameKey: 1 }, keyValue: { nameKey: 'a' }, errmsg: 'E11000' }))).to.equal('nameKey');
    expect(duplicateFieldOf(duplicate({ keyValue: { emailKey: 'a@b' }, errmsg: 'E11000' }))).to.equal('emailKey');
    expect(duplicateFieldOf(duplicate({ errmsg: 'E11000 duplicate key error collection: cairn.users index: usernameKey_1 dup key: { usernameKey: "x" }' }))).to.equal('usernameKey');
    expect(duplicateFieldOf(duplicate({ errmsg: 'E11000 duplicate key error index: cairn.users.$emailKey_1 dup key: { : "x" }' }))).to.equal('emailKey');
    expect(duplicateFieldOf(duplicate({ errmsg: 'E11000 duplicate key error collection: cairn.users index: _id_ dup key: { _id: "x" }' }))).to.equal('_id');
    // FerretDB says no field on an insert (the collection then looks it up) and only its SQLite constraint on an update.
    expect(duplicateFieldOf(duplicate({ errmsg: 'E11000 duplicate key' }))).to.equal(undefined);
    expect(() => mapDriverError(duplicate({ errmsg: 'E11000 duplicate key' }))).to.throw(DuplicateKeyError).with.property('field', '_id');
    const constraint = new MongoServerError({ code: 1, errmsg: "constraint failed: UNIQUE constraint failed: index 'servers_d330f226_nameKey_1' (2067)" });
    expect(() => mapDriverError(constraint)).to.throw(DuplicateKeyError).with.property('field', 'nameKey');
    expect(() => mapDriverError(duplicate({ errmsg: 'index: hash_1 dup key' }))).to.throw(DuplicateKeyError).with.property('field', 'hash');
    const other = new MongoServerError({ code: 2, errmsg: 'bad value' });
    expect(() => mapDriverError(other)).to.throw(other);
  });

  it('an unreachable store becomes StoreUnavailableError (503 not_ready), not internal', () => {
    for (const e of [new MongoNetworkError('socket closed'), new MongoServerSelectionError('no primary', { type: 'ReplicaSetNoPrimary' } as never), new MongoServerError({ code: 10107, errmsg: 'not primary' }), new MongoServerError({ code: 91, errmsg: 'shutting down' })]) {
      expect(() => mapDriverError(e), e.message).to.throw(StoreUnavailableError);
    }
    const problem = toDomainError(new StoreUnavailableError(new Error('x')), 1);
    expect(problem?.code).to.equal('not_ready');
    expect(problem?.headers).to.deep.equal({ 'Retry-After': '5' });
  });

  it('what the driver lets through on a cut or stalled store is unavailable too: a raw EPIPE, a pool wait timed out', () => {
    const writeAfterFin = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
    // The driver's own class is not exported; it differs from its parent only by this name.
    class WaitQueueTimeout extends MongoDriverError {
      override get name(): string {
        return 'MongoWaitQueueTimeoutError';
      }
    }
    const poolWait = new WaitQueueTimeout('Timed out while checking out a connection from connection pool');
    for (const e of [writeAfterFin, poolWait, new MongoOperationTimeoutError('timeoutMS spent')]) {
      expect(() => mapDriverError(e), e.message).to.throw(StoreUnavailableError);
    }
    const bug = new TypeError('x is undefined');
    expect(() => mapDriverError(bug), 'a fault of the program stays one (500)').to.throw(bug);
    const enoent = Object.assign(new Error('no such file'), { code: 'ENOENT' });
    expect(() => mapDriverError(enoent)).to.throw(enoent);
  });

  it('client options set in code win over the URI: primary reads, majority writes, bounded waits', async () => {
    const client = new MongoClient('mongodb://127.0.0.1:9/x?readPreference=secondary&w=1&serverSelectionTimeoutMS=60000&socketTimeoutMS=0', mongoClientOptions);
    try {
      expect(client.options.readPreference.mode).to.equal('primary');
      expect(client.options.writeConcern.w).to.equal('majority');
      expect(client.options.serverSelectionTimeoutMS).to.equal(5_000);
      expect(client.options.socketTimeoutMS).to.equal(10_000);
      expect(client.options.retryWrites).to.equal(true);
    } finally {
      await client.close();
    }
  });
});
