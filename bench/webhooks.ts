/**
 * Webhook delivery, against the built Controller in its own process and receivers in this one:
 * - event to first try: a healthy receiver notes when each `Send test` delivery arrives; the lag
 *   is its arrival less the event's `occurredAt` (one clock: this machine's), p50/p99 of
 *   BENCH_WEBHOOK_EVENTS (default 300) events;
 * - 10,000 pending: BENCH_WEBHOOK_DEAD (default 10) webhooks whose endpoint accepts connections and
 *   never answers get BENCH_WEBHOOK_PENDING (default 10,000) events between them; the Controller's
 *   RSS before and at its peak, and its `cairn_webhook_deliveries_pending` gauge;
 * - the healthy receiver's lag again while those deliveries wait (a dead endpoint must not slow it).
 * Run with `npm run bench webhooks`.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminSession, type ApiCall } from './support/admin-session.js';
import { MiB, peakRss, rssBytes, rssText, spawnProgram } from './support/process-rss.js';

const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 300);
const deadHooks = Number(process.env.BENCH_WEBHOOK_DEAD ?? 10);
const pendingTarget = Number(process.env.BENCH_WEBHOOK_PENDING ?? 10_000);

interface Webhook { id: string }

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Answers 204 at once and keeps each delivery's lag (its arrival less its event's time) by its `Cairn-Delivery`. */
class HealthyReceiver {
  private readonly lags = new Map<string, number>();
  private readonly waiting = new Map<string, (lagMs: number) => void>();
  readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrived = Date.now();
      res.writeHead(204).end();
      const id = req.headers['cairn-delivery'] as string;
      const lag = arrived - Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurredAt: string }).occurredAt);
      this.lags.set(id, lag);
      this.waiting.get(id)?.(lag);
    });
  });

  /** The delivery's lag once it has come (it may have come before Send test answered). */
  arrival(deliveryId: string): Promise<number> {
    const lag = this.lags.get(deliveryId);
    if (lag !== undefined) return Promise.resolve(lag);
    return new Promise((resolve) => this.waiting.set(deliveryId, resolve));
  }
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** One event at a time, so each lag is the outbox's own and not a queue of the bench's making. */
async function lags(call: ApiCall, receiver: HealthyReceiver, hook: Webhook, label: string): Promise<void> {
  const measured: number[] = [];
  for (let i = 0; i < events; i++) {
    const delivery = await call<{ id: string }>('POST', `/webhooks/${hook.id}/test`);
    measured.push(await receiver.arrival(delivery.id));
  }
  const sorted = measured.sort((a, b) => a - b);
  process.stdout.write(`${label}: event to first try p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted[sorted.length - 1]} ms (${events} events)\n`);
}

async function pendingGauge(httpPort: number, cookie: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`, { headers: { cookie } })).text();
  const match = /^cairn_webhook_deliveries_pending (\d+)/m.exec(text);
  return match ? Number(match[1]) : NaN;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-webhooks-'));
  process.env.CAIRN_ALLOW_PRIVATE_WEBHOOKS = '1';
  const controller = spawnProgram('dist/src/controller/main.js', ['--data-dir', join(dir, 'controller'), '--http-port', '0', '--grpc-port', '0']);
  const receiver = new HealthyReceiver();
  const held: Socket[] = [];
  const dead = createServer(() => undefined);
  dead.on('connection', (socket) => held.push(socket));
  try {
    const { httpPort, cookie, call } = await adminSession(controller.stdout!, join(dir, 'controller'));
    const healthyPort = await listen(receiver.server);
    const deadPort = await listen(dead);
    const healthy = await call<Webhook>('POST', '/webhooks', { name: 'healthy', url: `http://127.0.0.1:${healthyPort}/hook`, events: ['server.crashed'] });
    await lags(call, receiver, healthy, 'idle outbox');

    const hooks: Webhook[] = [];
    for (let i = 0; i < deadHooks; i++) hooks.push(await call<Webhook>('POST', '/webhooks', { name: `dead-${i}`, url: `http://127.0.0.1:${deadPort}/hook`, events: ['server.crashed'] }));
    const { rss } = await peakRss({ Controller: controller.pid! }, async () => {
      let next = 0;
      const worker = async () => {
        while (next < pendingTarget) {
          const hook = hooks[next++ % hooks.length];
          await call('POST', `/webhooks/${hook.id}/test`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    }, 50);
    const pending = await pendingGauge(httpPort, cookie);
    process.stdout.write(`${pendingTarget} events to ${deadHooks} webhooks that never answer: ${pending} deliveries pending; ${rssText(rss)}; ${((rss.Controller.peak - rss.Controller.before) / pendingTarget / 1024).toFixed(2)} KiB per pending delivery at the peak\n`);
    await lags(call, receiver, healthy, `while ${pending} wait on dead endpoints`);
    process.stdout.write(`Controller RSS afterwards: ${((await rssBytes(controller.pid!)) / MiB).toFixed(0)} MiB\n`);
  } finally {
    for (const socket of held) socket.destroy();
    dead.close();
    receiver.server.close();
    controller.kill('SIGTERM');
    await once(controller, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
