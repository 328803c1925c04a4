import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';

/**
 * The URI with its database replaced by another, so a test never touches real data.
 * Credentials keep authenticating where they did: against the URI's database, or `admin`.
 */
export function withDatabase(uri: string, db: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/([^/?]*))(?:\/([^?]*))?(\?.*)?$/.exec(uri);
  if (!m) throw new Error(`not a MongoDB URI: ${uri}`);
  let query = m.at(4) ?? '';
  if (m[2].includes('@') && !/[?&]authSource=/.test(query)) query += `${query ? '&' : '?'}authSource=${m[3] || 'admin'}`;
  return `${m[1]}/${db}${query}`;
}

/** A fresh database on the server `uri` names, and how to drop it afterwards. */
export function freshDatabase(uri: string, prefix: string): { uri: string; drop(): Promise<void> } {
  const db = `${prefix}_${randomBytes(6).toString('hex')}`;
  const testUri = withDatabase(uri, db);
  return {
    uri: testUri,
    async drop() {
      const client = await MongoClient.connect(testUri, { serverSelectionTimeoutMS: 5000 });
      try {
        await client.db(db).dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}
