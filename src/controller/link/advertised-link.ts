import type { AgentLink } from '../schemas/agent-link.js';

const wildcardHosts = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * What operators are told to pass to `cairn-agent --controller`. A wildcard listen address names
 * no host another machine can dial, so it is left out and the client supplies the host it used.
 */
export function advertisedAgentLink(listenHost: string, port: number, tls: boolean): AgentLink {
  return wildcardHosts.has(listenHost) ? { port, tls } : { host: listenHost, port, tls };
}
