/**
 * The variables the local Agent gets from the Controller's environment. Everything else stays
 * behind: the Controller's environment may hold its store's URI with a password, TLS key paths and
 * tokens, and the Agent runs third-party games that must never be one step from them.
 */
export const localAgentInheritedVariables = [
  // What finding programs, temp files, text and time need.
  'PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR',
  // Where the Agent looks for Java.
  'JAVA_HOME',
  // The Agent's own settings that the Controller does not pass as flags.
  'CAIRN_AGENT_CONFIG', 'CAIRN_AGENT_CPU_MILLIS', 'CAIRN_AGENT_MEMORY_BYTES', 'CAIRN_AGENT_DISK_BYTES',
  'CAIRN_JAVA', 'CAIRN_BIND_ADDRESS', 'CAIRN_RESTART_BACKOFF_MS', 'CAIRN_ISOLATION', 'CAIRN_GAME_UIDS',
] as const;

/** The local Agent's whole environment: the allowlisted variables of `parent`, then `set` (which wins). */
export function localAgentEnvironment(parent: NodeJS.ProcessEnv, set: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of localAgentInheritedVariables) {
    if (parent[name] !== undefined) env[name] = parent[name];
  }
  for (const [name, value] of Object.entries(set)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}
