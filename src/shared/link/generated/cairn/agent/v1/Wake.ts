// Original file: proto/cairn/agent/v1/agent.proto


/**
 * A sleeping server woke at `at` (ISO 8601): by a player's login (`player`, the login name) or, with
 * `player` empty, by an explicit start.
 */
export interface WakeInput {
  'at'?: (string);
  'player'?: (string);
}

/**
 * A sleeping server woke at `at` (ISO 8601): by a player's login (`player`, the login name) or, with
 * `player` empty, by an explicit start.
 */
export interface Wake {
  'at': (string);
  'player': (string);
}
