import { createServer as createHttpServer, type IncomingMessage, type Server as PlainServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as TlsServer } from 'node:https';
import type Koa from 'koa';

export type HttpServer = PlainServer | TlsServer;

/** Serves `app` on HOST:PORT, over HTTPS when given a certificate and key; resolves once it listens. */
export function listenHttp(app: Koa, options: { host: string; port: number; tls?: { cert: Buffer; key: Buffer } }): Promise<HttpServer> {
  const callback = app.callback();
  const handle = (req: IncomingMessage, res: ServerResponse) => void callback(req, res);
  const server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handle) : createHttpServer(handle);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
