import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { deliveryBody } from '../../src/controller/domain/webhooks/delivery-body.js';
import { nextStep, retryAfterMs, retryPlanMs } from '../../src/controller/domain/webhooks/delivery-plan.js';
import { crashWords } from '../../src/controller/domain/webhooks/event-words.js';
import { signatureHeader } from '../../src/controller/domain/webhooks/signature.js';
import type { WebhookEventBody } from '../../src/controller/schemas/webhooks.js';

const now = new Date('2026-11-29T04:00:00.000Z');
const crashed: WebhookEventBody = {
  id: '7a0c6a52-55f4-4d0e-9f42-1b1f0d1a2b3c',
  event: 'server.crashed',
  occurredAt: now.toISOString(),
  server: { id: '0b8e7a4e-3c1d-4f6b-8a2e-9d0c1b2a3f4e', name: 'lobby', teamId: '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f' },
  details: { reason: 'OOM_KILLED', signal: 'SIGKILL', memoryLimitBytes: 512 * 1024 * 1024 },
};

describe('webhooks: delivery plan, signature and bodies (pure)', () => {
  it('delivers on 2xx, retries other answers and errors after 1 s, 5 s, 30 s, 2 min and 10 min, then fails', () => {
    expect(nextStep(1, { kind: 'answered', status: 204 }, now)).to.deep.equal({ state: 'DELIVERED' });
    const waits = [1, 2, 3, 4, 5].map((attempt) => {
      const step = nextStep(attempt, attempt % 2 ? { kind: 'answered', status: 500 } : { kind: 'failed', error: 'ECONNRESET' }, now);
      return step.state === 'PENDING' ? step.retryAt.getTime() - now.getTime() : step.state;
    });
    expect(waits).to.deep.equal([...retryPlanMs]);
    expect(nextStep(6, { kind: 'answered', status: 500 }, now)).to.deep.equal({ state: 'FAILED' });
  });

  it('a 429 waits its Retry-After (seconds or a date, at most 10 min) and still counts as a try', () => {
    const after = (retryAfter: string | null) => {
      const step = nextStep(1, { kind: 'answered', status: 429, retryAfter }, now);
      return step.state === 'PENDING' ? step.retryAt.getTime() - now.getTime() : step.state;
    };
    expect(after('2.5')).to.equal(2500);
    expect(after(new Date(now.getTime() + 7000).toUTCString())).to.equal(7000);
    expect(after('86400')).to.equal(600_000);
    expect(after('soon')).to.equal(retryPlanMs[0]);
    expect(retryAfterMs(null, now)).to.equal(null);
    expect(nextStep(6, { kind: 'answered', status: 429, retryAfter: '1' }, now)).to.deep.equal({ state: 'FAILED' });
  });

  it('signs "<t>.<body>" with HMAC-SHA256 under the secret, as a receiver checks it', () => {
    const body = deliveryBody('json', crashed);
    const header = signatureHeader('a-secret-of-sixteen+', body, now);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    expect(Number(t)).to.equal(now.getTime() / 1000);
    expect(v1).to.equal(createHmac('sha256', 'a-secret-of-sixteen+').update(`${t}.${body}`).digest('hex'));
    expect(signatureHeader('another-secret-16', body, now)).to.not.equal(header);
  });

  it('a crash in Discord format names the server and says an OOM kill in words with the limit', () => {
    const discord = JSON.parse(deliveryBody('discord', crashed)) as { content: string; embeds: { title: string; description: string; color: number; timestamp: string }[] };
    expect(discord.content).to.equal('lobby crashed: killed: out of memory at its 512 MiB limit');
    expect(discord.embeds).to.have.length(1);
    expect(discord.embeds[0]).to.include({ title: discord.content, timestamp: crashed.occurredAt, color: 0xd83c3e });
    expect(discord.embeds[0].description).to.include('Server: lobby');
    expect(JSON.parse(deliveryBody('slack', crashed))).to.deep.equal({ text: discord.content });
    expect(JSON.parse(deliveryBody('json', crashed))).to.deep.equal(crashed);
  });

  it('says how a game ended: a signal, an exit code, or nothing known', () => {
    expect(crashWords({ signal: 'SIGSEGV' })).to.equal('ended by SIGSEGV');
    expect(crashWords({ exitCode: 1 })).to.equal('exit code 1');
    expect(crashWords({ reason: 'OOM_KILLED' })).to.equal('killed: out of memory');
    expect(crashWords({})).to.equal('ended with no exit status');
  });

  it('cuts a Discord message to the lengths Discord accepts', () => {
    const long = { ...crashed, event: 'server.update_failed' as const, details: { message: 'x'.repeat(3000) } };
    const discord = JSON.parse(deliveryBody('discord', long)) as { content: string; embeds: { title: string }[] };
    expect(discord.content).to.have.length(2000);
    expect(discord.embeds[0].title).to.have.length(256);
  });
});
