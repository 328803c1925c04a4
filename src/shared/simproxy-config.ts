import Type, { type Static } from 'typebox';

/**
 * `simproxy.json` in the proxy's server directory: written by the Agent (temp file, then rename),
 * re-read by simproxy whenever it changes. `bind` and `port` apply at start; routes at once.
 */
export const simproxyConfigFileName = 'simproxy.json';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });

export const SimproxyRoute = Type.Object({
  serverId: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  address: Type.String({ minLength: 1, maxLength: 253 }),
  port: Port,
}, { additionalProperties: false });

export const SimproxyConfig = Type.Object({
  bind: Type.Optional(Type.String({ minLength: 1, description: 'Address to listen on; all interfaces when absent.' })),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  routes: Type.Array(SimproxyRoute),
  lobbyServerId: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

export type SimproxyRouteSpec = Static<typeof SimproxyRoute>;
export type SimproxyConfigSpec = Static<typeof SimproxyConfig>;
