import { expect } from 'chai';
import { DomainError } from '../../src/controller/core/errors.js';
import { validateBody, validateText } from '../../src/controller/http/schema-registry.js';
import { AuditQuery } from '../../src/controller/schemas/audit.js';
import { CreateServer } from '../../src/controller/schemas/servers.js';
import { CreateUser } from '../../src/controller/schemas/users.js';

/** The detail of the problem a body or query is refused with. */
function refusal(check: () => unknown): string {
  try {
    check();
  } catch (e) {
    expect(e).to.be.instanceOf(DomainError);
    expect((e as DomainError).code).to.equal('invalid_request');
    return (e as DomainError).message;
  }
  throw new Error('accepted');
}

const server = { name: 'lobby', teamId: '0b6f3c1e-6a2d-4c47-9a0e-7a1f8d3b2c10', software: { template: 'simcraft', version: '1.0' }, resources: { cpuMillis: 1000, memoryBytes: 2 ** 30 } };
const body = (value: unknown) => refusal(() => validateBody(CreateServer, value));

describe('validation problems say what to do, naming the field', () => {
  it('words instead of the schema: lengths, ids, numbers, unknown and missing fields', () => {
    expect(body({ ...server, name: '' })).to.equal('body.name: enter at least 1 character.');
    expect(body({ ...server, name: 'x'.repeat(65) })).to.equal('body.name: use at most 64 characters.');
    expect(body({ ...server, name: 'a\nb' })).to.equal('body.name: remove control characters such as line breaks and tabs.');
    expect(body({ ...server, teamId: '' })).to.equal('body.teamId: give the id of a team (a UUID).');
    expect(body({ ...server, nodeId: 'edge-1' })).to.equal('body.nodeId: give the id of a Node (a UUID).');
    expect(body({ ...server, resources: { ...server.resources, cpuMillis: 0 } })).to.equal('body.resources.cpuMillis: give 1 or more.');
    expect(body({ ...server, resources: { ...server.resources, cpuMillis: 1.5 } })).to.equal('body.resources.cpuMillis: give a whole number.');
    expect(body({ ...server, software: { ...server.software, template: 'Paper' } }))
      .to.equal('body.software.template: use lower-case letters, digits and hyphens, starting with a letter or digit.');
    expect(body({ ...server, colour: 'red' })).to.equal('body.colour: unknown field; remove it or check its spelling.');
    const { teamId: _, ...teamless } = server;
    expect(body(teamless)).to.equal('body.teamId: is required; add it.');
  });

  it('emails, dates and enums are described with an example or the allowed values', () => {
    const user = { username: 'mia', email: 'mia', displayName: 'Mia', password: 'first-password-1' };
    expect(refusal(() => validateBody(CreateUser, user))).to.equal('body.email: give an email address such as name@example.com.');
    expect(refusal(() => validateText(AuditQuery, { since: 'yesterday' }, 'query')))
      .to.equal('query.since: give a date and time such as 2026-01-31T12:00:00Z.');
    expect(refusal(() => validateText(AuditQuery, { outcome: 'MAYBE' }, 'query'))).to.equal('query.outcome: choose one of "SUCCESS", "DENIED", "FAILED".');
  });

  it('no detail carries ajv\'s own wording', () => {
    for (const detail of [body({ ...server, name: '' }), body({ ...server, teamId: 'x' }), body({ ...server, resources: 1 })]) {
      expect(detail).not.to.match(/must (NOT|match|be|have)/);
    }
  });
});
