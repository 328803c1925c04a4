import { expect } from 'chai';
import type { TSchema } from 'typebox';
import { allRoutes } from '../../src/controller/http/routes/index.js';
import { validateText } from '../../src/controller/http/schema-registry.js';
import { PageQuery } from '../../src/controller/schemas/common.js';
import { ConsoleQuery } from '../../src/controller/schemas/operations.js';

type ObjectSchema = TSchema & { properties: Record<string, { default?: unknown }>; required?: string[] };

describe('query defaults', () => {
  it('validation fills in limit and tail when the client leaves them out', () => {
    expect(validateText(PageQuery, {}, 'query')).to.deep.equal({ limit: 50 });
    expect(validateText(PageQuery, { limit: '7', cursor: 'abc' }, 'query')).to.deep.equal({ limit: 7, cursor: 'abc' });
    expect(validateText(ConsoleQuery, {}, 'query')).to.deep.equal({ tail: 100 });
  });

  it('every route\'s query field with a default arrives with it, so handlers need no fallback', () => {
    const routes = allRoutes({} as never, {} as never);
    let filled = 0;
    for (const route of routes) {
      const schema = route.query as ObjectSchema | undefined;
      if (!schema || (schema.required ?? []).length > 0) continue;
      const query = validateText<Record<string, unknown>>(schema, {}, 'query');
      for (const [name, field] of Object.entries(schema.properties)) {
        if (field.default === undefined) continue;
        expect(query[name], `${route.method} ${route.path} ${name}`).to.equal(field.default);
        filled++;
      }
    }
    // Every list (limit) and the console stream (tail).
    expect(filled).to.be.at.least(12);
  });
});
