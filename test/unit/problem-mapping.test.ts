import { expect } from 'chai';
import { DomainError, errorCodes, invalidRequest, tooManyAttempts } from '../../src/controller/core/errors.js';
import { problemBody, problemCatalog, statusOf, toDomainError } from '../../src/controller/http/problem.js';
import { hidden } from '../../src/controller/services/identity/access.js';

describe('domain errors as problems', () => {
  it('the catalogue has exactly one entry per error code, in the code list\'s order', () => {
    expect(Object.keys(problemCatalog)).to.deep.equal([...errorCodes]);
  });

  it('a code maps to its status, title and type; the detail is kept, and left out when absent', () => {
    expect(statusOf(invalidRequest('body.name: is required.'))).to.equal(400);
    expect(problemBody(invalidRequest('body.name: is required.'))).to.deep.equal({
      type: 'https://cairn.dev/problems/invalid_request', title: 'The request is invalid.', status: 400, code: 'invalid_request', detail: 'body.name: is required.',
    });
    expect(problemBody(new DomainError('phase_busy'))).to.deep.equal({
      type: 'https://cairn.dev/problems/phase_busy', title: 'Another workflow is running for this server.', status: 409, code: 'phase_busy',
    });
    expect(statusOf(new DomainError('node_unavailable'))).to.equal(503);
  });

  it('too_many_attempts carries Retry-After in whole seconds, at least 1', () => {
    expect(tooManyAttempts(12.2).headers).to.deep.equal({ 'Retry-After': '13' });
    expect(tooManyAttempts(0.1).headers).to.deep.equal({ 'Retry-After': '1' });
    expect(statusOf(tooManyAttempts(5))).to.equal(429);
  });

  it('a hidden resource answers not_found but is a refusal', () => {
    const error = hidden('server');
    expect(problemBody(error)).to.include({ code: 'not_found', status: 404, detail: 'No such server.' });
    expect(error.denied).to.equal(true);
    expect(invalidRequest('x').denied).to.equal(false);
  });

  it('body parser errors become too_large or invalid_request; anything else stays unmapped', () => {
    expect(toDomainError({ status: 413 }, 1024)).to.deep.include({ code: 'too_large', detail: 'The body is larger than 1024 bytes.' });
    expect(toDomainError({ status: 400, expose: true, message: 'Unexpected token' }, 1024)).to.deep.include({ code: 'invalid_request', detail: 'body: Unexpected token' });
    expect(toDomainError({ status: 415, expose: false }, 1024)).to.deep.include({ code: 'invalid_request', detail: 'body: could not be read.' });
    expect(toDomainError(new Error('boom'), 1024)).to.equal(undefined);
    const own = new DomainError('conflict', 'taken');
    expect(toDomainError(own, 1024)).to.equal(own);
  });
});
