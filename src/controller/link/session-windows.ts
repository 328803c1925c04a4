import type * as grpc from '@grpc/grpc-js';
import type { Http2Server, ServerHttp2Session } from 'node:http2';
import { linkWindowBytes } from '../../shared/link/flow-control.js';

/** Where grpc-js (1.14, pinned) makes the HTTP/2 server behind a port or a connection injector. */
interface Http2ServerMaker {
  createHttp2Server?: (credentials: grpc.ServerCredentials) => Http2Server;
}

/** Grants the link's window on a new session: per stream in its settings, per connection at once. */
function widen(session: ServerHttp2Session): void {
  session.settings({ initialWindowSize: linkWindowBytes });
  session.setLocalWindowSize(linkWindowBytes);
}

/**
 * Gives every HTTP/2 session `server` makes from now on the link's windows. grpc-js takes a window
 * option on a client only (`grpc-node.flow_control_window`), so an Agent's sends to the Controller
 * would cross HTTP/2's 64 KiB windows. Call before binding or injecting; answers false when this
 * grpc-js makes its servers elsewhere (the windows then stay small, which a test notices).
 */
export function widenSessionWindows(server: grpc.Server): boolean {
  const maker = server as unknown as Http2ServerMaker;
  const create = maker.createHttp2Server?.bind(server);
  if (!create) return false;
  maker.createHttp2Server = (credentials) => create(credentials).on('session', widen);
  return true;
}
