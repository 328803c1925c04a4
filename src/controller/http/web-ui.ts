import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Middleware } from 'koa';
import compress from 'koa-compress';
import { DomainError } from '../core/errors.js';

/**
 * Where `npm run build` puts the web UI: `dist/web`, found from this module whether it runs
 * built (`dist/src/controller/http`) or from source through tsx (`src/controller/http`).
 */
export function defaultWebDir(moduleUrl: string = import.meta.url): string {
  return fileURLToPath(new URL(moduleUrl.endsWith('.ts') ? '../../../dist/web/' : '../../../web/', moduleUrl));
}

/**
 * Scripts only from this origin, never inline. Styles also allow inline: xterm.js 6 injects
 * `<style>` elements it offers no nonce for (CodeMirror would take one); an injected style
 * cannot run script. Nothing is loaded from another origin.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = {
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Vite names everything under assets/ by its content hash, so a year is safe. */
const immutable = 'public, max-age=31536000, immutable';

const reserved = /^\/(?:api(?:\/|$)|healthz$|readyz$|metrics$)/;

const loadSend = () => import('koa-send');

const isNotFound = (e: unknown) => (e as { status?: number }).status === 404;

/**
 * Serves the single-page app: files of the build as they are, and the app's HTML (never cached)
 * for every other path outside the API and the operations endpoints, so client-side routes
 * like `/servers/<id>` work when pasted. Answers are compressed (gzip or brotli) when the client
 * accepts it.
 */
export function webUi(options: { dir: string }): Middleware {
  const gzip = compress({ threshold: 1024 });
  // koa-send (≈ 40 ms of CPU to load) comes with the first file asked for, not at start.
  let sender: ReturnType<typeof loadSend> | undefined;
  const sendFile = async (ctx: Context, path: string, cacheControl: string) =>
    (await (sender ??= loadSend())).default(ctx, path, { root: options.dir, index: false, gzip: false, brotli: false, setHeaders: (res) => res.setHeader('Cache-Control', cacheControl) })
      .catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });

  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || reserved.test(ctx.path)) {
      await next();
      return;
    }
    ctx.set(securityHeaders);
    await gzip(ctx, async () => {
      const asset = ctx.path.startsWith('/assets/');
      if (ctx.path !== '/' && (await sendFile(ctx, ctx.path, asset ? immutable : 'no-cache'))) return;
      if (asset) throw new DomainError('not_found', `No such asset: ${ctx.path}`);
      const html = join(options.dir, 'index.html');
      if (!(await stat(html).catch(() => undefined))) throw new DomainError('not_found', 'The web UI is not built: run `npm run build`.');
      await sendFile(ctx, 'index.html', 'no-store');
    });
  };
}
