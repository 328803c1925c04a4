import Router from '@koa/router';
import type { Context, Next } from 'koa';

/** The first path segment under /api/v1; the routes match regardless of case, so the table does too. */
const apiSegment = /^\/api\/v1\/([^/]+)/i;
const underApi = /^\/api\/v1(?:\/|$)/i;

type Step = (ctx: Context, next: Next) => Promise<void>;

/** What of @koa/router's Layer the fast path reads. */
interface Layer {
  path: string;
  methods: string[];
  paramNames: unknown[];
  stack: unknown[];
  match(path: string): boolean;
  captures(path: string): string[];
  params(path: string, captures: string[], existing: Record<string, string>): Record<string, string>;
}

/**
 * One router's requests. A request that a route answers goes straight to the first route matching
 * its method and path, with the params and route template @koa/router would give it (building
 * its middleware chain a request was a good part of the router's cost); anything else (404, 405,
 * OPTIONS, 501) goes through the router and its allowed-methods answer, as before.
 */
const chain = (router: Router): Step => {
  // The router's own middleware types ask for the context fields it adds itself.
  const routes = router.routes() as unknown as Step;
  const allowed = router.allowedMethods() as unknown as Step;
  const layers = router.stack as unknown as Layer[];
  return (ctx, next) => {
    const path = ctx.path;
    for (const layer of layers) {
      if (!layer.methods.includes(ctx.method) || !layer.match(path)) continue;
      if (layer.stack.length !== 1) break;
      const params = layer.paramNames.length > 0 ? layer.params(path, layer.captures(path), {}) : {};
      const routed = ctx as Context & { params: Record<string, string>; request: { params: Record<string, string> }; routerPath: string; _matchedRoute: string };
      routed.params = routed.request.params = params;
      routed.routerPath = routed._matchedRoute = layer.path;
      return (layer.stack[0] as Step)(ctx, next);
    }
    return routes(ctx, () => allowed(ctx, next));
  };
};

/**
 * The API's routes, one @koa/router per first path segment (`/servers/...`, `/me/...`), so a
 * request is matched against the few routes that share its segment rather than against every
 * route (@koa/router tests each in turn). Answers are those of one router holding them all:
 * a segment no route has still gets the 404, 405 and 501 answers of an empty router.
 */
export class RouteTable {
  private readonly routers = new Map<string, Router>();

  /** The router for an OpenAPI-style path under /api/v1 (`/servers/{serverId}`). */
  routerFor(path: string): Router {
    const segment = /^\/([^/{}]+)/.exec(path)?.[1]?.toLowerCase();
    if (!segment) throw new Error(`${path}: an API path starts with a literal segment`);
    let router = this.routers.get(segment);
    if (!router) this.routers.set(segment, (router = new Router({ prefix: '/api/v1' })));
    return router;
  }

  /** API paths go to their segment's router; every other path to `outside`, then to an empty API router as before. */
  middleware(outside: Router): Step {
    const bySegment = new Map([...this.routers].map(([segment, router]) => [segment, chain(router)]));
    const none = chain(new Router({ prefix: '/api/v1' }));
    const others = chain(outside);
    return (ctx, next) => {
      const path = ctx.path;
      const segment = apiSegment.exec(path)?.[1];
      if (segment !== undefined) return (bySegment.get(segment.toLowerCase()) ?? none)(ctx, next);
      if (underApi.test(path)) return none(ctx, next);
      return others(ctx, () => none(ctx, next));
    };
  }
}
