import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const webRoot = fileURLToPath(new URL('../../src/web/', import.meta.url));
const webSrc = join(webRoot, 'src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : Promise.resolve(/\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []))));
  return nested.flat();
}

describe('web UI: speaks only the public API', () => {
  it('reaches outside src/web only from api/types.ts, and only for types (nothing of the server is bundled)', async () => {
    const outside: string[] = [];
    for (const file of await sourceFiles(webSrc)) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gm)) {
        const target = resolve(dirname(file), match[2]);
        if (!target.startsWith(webRoot)) outside.push(`${relative(webSrc, file)}: ${match[1] ? 'type' : 'VALUE'} ${relative(webRoot, target)}`);
      }
    }
    expect(outside.length).to.be.greaterThan(0);
    for (const line of outside) expect(line).to.match(/^api\/types\.ts: type \.\.\/controller\/(schemas|services)\//);
  });
});
