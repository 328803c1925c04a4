import { PassThrough } from 'node:stream';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../shared/logger.js';
import { isDomainError } from '../core/errors.js';
import { toJsonLine } from '../link/link-json.js';
import { linkRequestPath, type ForwardedAnswer, type ForwardedRequest } from '../link/link-forward.js';
import { fromJsonLine } from '../link/link-json.js';
import type { InternalPurpose, InternalTokens } from '../security/internal-token.js';
import type { HolderSide } from '../services/console/holder-side.js';
import { consolePath, type ForwardedConsole } from '../services/console/remote-console.js';
import { backupRunPath, type BackupHandoff, type HandedOffBackup } from '../services/backups/backup-handoff.js';
import { workflowRunPath, type HandedOffRun } from '../services/workflows/workflow-handoff.js';
import type { WorkflowRunner } from '../services/workflows/workflow-runner.js';
import { consoleTail } from '../schemas/operations.js';
import { statusOf } from './problem.js';
import { endEventStream, maxLagBytes, openEventStream } from './sse.js';

/** A forwarded request holds at most one 1 MiB chunk, as base64 in JSON. */
const maxBodyBytes = 4 * 1024 * 1024;
/** No Agent request waits longer than this (the longest deadline a service gives is well below). */
const maxTimeoutMs = 15 * 60_000;

const purposes: Partial<Record<string, InternalPurpose>> = {
  [linkRequestPath]: 'link-request', [consolePath]: 'console', [workflowRunPath]: 'workflow-run', [backupRunPath]: 'backup-run',
};

type PeerDeps = { tokens: InternalTokens; holder: HolderSide; workflows: Pick<WorkflowRunner, 'adopt'>; backups: Pick<BackupHandoff, 'adopt'>; logger: Logger };

function answer(ctx: Context, status: number, code: string, detail?: string, headers?: Record<string, string>): void {
  ctx.status = status;
  // A refusal before the body was read must not cost reading it: the connection closes instead.
  if (!ctx.req.complete) ctx.set('Connection', 'close');
  ctx.type = 'application/json';
  ctx.body = toJsonLine({ code, ...(detail ? { detail } : {}), ...(headers ? { headers } : {}) });
}

async function readBody(ctx: Context): Promise<unknown> {
  const pieces: Buffer[] = [];
  let bytes = 0;
  for await (const piece of ctx.req as AsyncIterable<Buffer>) {
    bytes += piece.length;
    if (bytes > maxBodyBytes) throw new Error('too large');
    pieces.push(piece);
  }
  return fromJsonLine(Buffer.concat(pieces).toString('utf8'));
}

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';

function linkRequest(v: unknown): ForwardedRequest | undefined {
  const r = (v ?? {}) as { nodeId?: unknown; timeoutMs?: unknown; body?: unknown };
  const timeoutMs = typeof r.timeoutMs === 'number' ? r.timeoutMs : 0;
  const ok = isText(r.nodeId) && Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= maxTimeoutMs
    && typeof r.body === 'object' && r.body !== null && isText((r.body as { body?: unknown }).body);
  return ok ? (r as ForwardedRequest) : undefined;
}

function handedOffRun(v: unknown): HandedOffRun | undefined {
  const r = (v ?? {}) as { serverId?: unknown };
  return isText(r.serverId) ? (r as HandedOffRun) : undefined;
}

function handedOffBackup(v: unknown): HandedOffBackup | undefined {
  const r = (v ?? {}) as { backupId?: unknown };
  return isText(r.backupId) ? (r as HandedOffBackup) : undefined;
}

function consoleRequest(v: unknown): ForwardedConsole | undefined {
  const r = (v ?? {}) as { serverId?: unknown; userId?: unknown; tail?: unknown };
  const tail = typeof r.tail === 'number' ? r.tail : -1;
  const ok = isText(r.serverId) && isText(r.userId) && Number.isInteger(tail) && tail >= consoleTail.min && tail <= consoleTail.max;
  return ok ? (r as ForwardedConsole) : undefined;
}

/**
 * The endpoint other Controllers on the store call (`/internal/v1/…`): Agent requests, console
 * streams, workflow runs and backups for Nodes this Controller drives. It is not part of the API (no OpenAPI entry, no user
 * credentials, no audit: the Controller the user called checked and audited the request), and
 * anything without a live internal token for this Controller is refused before its body is read.
 */
export function internalPeerEndpoint(deps: PeerDeps): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/internal/')) {
      await next();
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    const purpose = purposes[ctx.path];
    if (!purpose || ctx.method !== 'POST') return answer(ctx, 404, 'not_found');
    const token = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
    if (!token || !(await deps.tokens.verify(token, purpose))) {
      deps.logger.warn({ event: 'internal_request_refused', path: ctx.path, from: ctx.ip }, 'refused a request to the internal endpoint without a valid token');
      return answer(ctx, 401, 'unauthenticated');
    }
    let body: unknown;
    try {
      body = await readBody(ctx);
    } catch {
      return answer(ctx, 400, 'invalid_request', 'The body is not JSON of at most 4 MiB.');
    }
    if (purpose === 'link-request') return forwardLinkRequest(ctx, deps, linkRequest(body));
    if (purpose === 'workflow-run') return adoptRun(ctx, deps, handedOffRun(body));
    if (purpose === 'backup-run') return adoptBackup(ctx, deps, handedOffBackup(body));
    return forwardConsole(ctx, deps, consoleRequest(body));
  };
}

function forwardLinkRequest(ctx: Context, deps: { holder: HolderSide; logger: Logger }, request: ForwardedRequest | undefined): void {
  if (!request) return answer(ctx, 400, 'invalid_request');
  const lines = new PassThrough();
  ctx.status = 200;
  ctx.type = 'application/x-ndjson';
  (ctx as unknown as { compress?: boolean }).compress = false;
  ctx.body = lines;
  // The other Controller may leave (its caller gave up): what its Agent still answers is dropped.
  const send = (line: ForwardedAnswer) => {
    if (!lines.destroyed) lines.write(toJsonLine(line));
  };
  deps.holder.ask(request, send)
    .catch((err: unknown) => {
      deps.logger.error({ err, nodeId: request.nodeId }, 'a forwarded Agent request failed here');
      send({ unavailable: 'closed' });
    })
    .finally(() => lines.end());
}

/** 202 once the run goes on here; 409 when this Controller does not drive the server's Node (any more), so the caller runs it. */
async function adoptRun(ctx: Context, deps: PeerDeps, run: HandedOffRun | undefined): Promise<void> {
  if (!run) return answer(ctx, 400, 'invalid_request');
  adopted(ctx, await deps.workflows.adopt(run.serverId), run);
}

/** 202 once the backup is queued here; 409 when this Controller does not drive its Node, so the caller runs it. */
async function adoptBackup(ctx: Context, deps: PeerDeps, run: HandedOffBackup | undefined): Promise<void> {
  if (!run) return answer(ctx, 400, 'invalid_request');
  adopted(ctx, await deps.backups.adopt(run.backupId), run);
}

function adopted(ctx: Context, taken: boolean, handed: object): void {
  if (!taken) return answer(ctx, 409, 'not_held');
  ctx.status = 202;
  ctx.type = 'application/json';
  ctx.body = toJsonLine(handed);
}

async function forwardConsole(ctx: Context, deps: { holder: HolderSide }, request: ForwardedConsole | undefined): Promise<void> {
  if (!request) return answer(ctx, 400, 'invalid_request');
  let watch: Awaited<ReturnType<HolderSide['watch']>>;
  try {
    watch = await deps.holder.watch(request);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return answer(ctx, statusOf(e), e.code, e.detail, e.headers);
  }
  const stream = openEventStream(ctx);
  void stream.closed.then(() => watch.close());
  watch.start({
    line: (event) => {
      stream.send('line', event);
      if (stream.bufferedBytes > maxLagBytes) endEventStream(stream, { reason: 'lagging' });
    },
    replayed: (event) => stream.send('replayed', event),
    end: (event) => endEventStream(stream, event),
  });
}
