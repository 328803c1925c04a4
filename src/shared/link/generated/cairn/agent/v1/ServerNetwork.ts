// Original file: proto/cairn/agent/v1/agent.proto

import type { NetworkRouteInput as _cairn_agent_v1_NetworkRouteInput, NetworkRoute as _cairn_agent_v1_NetworkRoute } from '../../../cairn/agent/v1/NetworkRoute.js';

export interface ServerNetworkInput {
  /**
   * Proxy only: the members that are running as members, lobby first, then the others in a
   * stable order (name, then id); the proxy tries them in this order.
   */
  'routes'?: (_cairn_agent_v1_NetworkRouteInput)[];
  /**
   * Proxy only: the lobby's server id when it is among the routes; empty otherwise.
   */
  'lobbyServerId'?: (string);
  /**
   * The modern-forwarding secret the proxy signs player information with and members check it
   * with. A secret: the Agent writes it only into the files the software reads it from and never
   * logs it.
   */
  'forwardingSecret'?: (string);
}

export interface ServerNetwork {
  /**
   * Proxy only: the members that are running as members, lobby first, then the others in a
   * stable order (name, then id); the proxy tries them in this order.
   */
  'routes': (_cairn_agent_v1_NetworkRoute)[];
  /**
   * Proxy only: the lobby's server id when it is among the routes; empty otherwise.
   */
  'lobbyServerId': (string);
  /**
   * The modern-forwarding secret the proxy signs player information with and members check it
   * with. A secret: the Agent writes it only into the files the software reads it from and never
   * logs it.
   */
  'forwardingSecret': (string);
}
