// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Carries nothing: its arrival is the message.
 */
export interface KeepaliveInput {
}

/**
 * Carries nothing: its arrival is the message.
 */
export interface Keepalive {
}
