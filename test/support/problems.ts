import { expect } from 'chai';
import type { TSchema } from 'typebox';
import type { PageOf, Problem } from './api-types.js';
import type { ApiResponse } from './http.js';

/** Asserts an RFC 9457 problem answer: status, `application/problem+json`, the stable code and the body shape. */
export function expectProblem(res: ApiResponse, status: number, code: string, detailIncludes?: string): void {
  expect(res.status, `${res.status} ${res.text}`).to.equal(status);
  expect(res.headers.get('content-type') ?? '').to.match(/^application\/problem\+json/);
  expect(res.body).to.be.an('object');
  // Partial: which fields are there is what this function checks.
  const body = res.body as Partial<Problem>;
  expect(body.code).to.equal(code);
  expect(body.status).to.equal(status);
  expect(body.type).to.be.a('string').and.match(new RegExp(`/problems/${code}$`));
  expect(body.title).to.be.a('string').and.not.equal('');
  if (detailIncludes !== undefined) expect(body.detail, res.text).to.be.a('string').and.include(detailIncludes);
}

/** Collects every page of a list endpoint, checking the paged-list shape on the way. */
export async function allPages<P extends PageOf<TSchema>>(get: (cursor?: string) => Promise<ApiResponse<P>>): Promise<P['items']> {
  const items: P['items'] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const res = await get(cursor);
    expect(res.status, res.text).to.equal(200);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (cursor === undefined) return items;
    expect(cursor.length).to.be.at.most(200);
  }
  throw new Error('too many pages');
}
