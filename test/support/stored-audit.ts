import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { testStoreUri, type TestController } from './controller.js';

/**
 * Everything the store holds of the audit log, as text: the embedded store's segment files, or the
 * MongoDB adapter's documents (CAIRN_TEST_MONGODB=1) as JSON lines. Tests search it for secrets and
 * measure how much a flood adds.
 */
export async function storedAuditText(t: TestController): Promise<string> {
  const uri = await testStoreUri(t);
  if (uri !== undefined) {
    const client = await MongoClient.connect(uri);
    try {
      const events = await client.db().collection('auditEvents').find().toArray();
      return events.map((e) => JSON.stringify(e)).join('\n');
    } finally {
      await client.close();
    }
  }
  const dir = join(t.dataDir, 'store', 'audit');
  const names = (await readdir(dir, { recursive: true })).map(String).filter((n) => n.endsWith('.jsonl'));
  return (await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')))).join('');
}
