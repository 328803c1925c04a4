import { expect } from 'chai';
import { MongoClient, type Document } from 'mongodb';
import { reconcileIndexes } from '../../src/controller/store/mongo/mongo-indexes.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';

/**
 * Controllers started together on a fresh database all make its indexes at once: each start must
 * succeed whoever made an index first (FerretDB fails a second create of the same index).
 */
const mongo = testMongo;
if (!mongo) console.log('index creation by several Controllers at once: not run (no MongoDB or FerretDB for the tests)');
else {
  describe(`indexes made by several Controllers at once (${mongo.kind})`, function () {
    this.timeout(60_000);
    const db = freshTestDatabase(mongo, 'cairn_index_race');
    const clients: MongoClient[] = [];
    after(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await db.drop();
    });

    it('four Controllers reconciling fresh collections at once all succeed and leave exactly the declared indexes', async () => {
      for (let i = 0; i < 4; i++) clients.push(await MongoClient.connect(await db.uri(), { serverSelectionTimeoutMS: 5000 }));
      const declared = [{ field: 'teamId' }, { field: 'name', unique: true }, { field: 'token', unique: true, sparse: true }];
      for (let round = 0; round < 10; round++) {
        // Starts a few milliseconds apart, as Controllers started together are.
        const outcomes = await Promise.allSettled(clients.map(async (c, i) => {
          await new Promise((resolve) => setTimeout(resolve, (i * round) % 7));
          await reconcileIndexes(c.db().collection<Document>(`race${round}`), declared);
        }));
        expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : [])), `round ${round}`).to.deep.equal([]);
        const indexes = await clients[0].db().collection(`race${round}`).listIndexes().toArray() as Document[];
        const names = indexes.map((index) => String(index.name)).sort();
        expect(names).to.deep.equal(['_id_', 'name_1', 'teamId_1', 'token_1']);
      }
    });
  });
}
