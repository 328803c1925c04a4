/**
 * Where the Agent reads the host's accounts (passwd, group, subuid, subgid) and where it claims its
 * uid range among the host's Agents. Tests move both (to fixtures, and to a directory of their own)
 * through these variables, named in docs/operations.md; they are no flags, as no host needs another place.
 */
export function hostDirs(env: NodeJS.ProcessEnv = process.env): { etc: string; claims: string } {
  return { etc: env.CAIRN_AGENT_ETC_DIR || '/etc', claims: env.CAIRN_AGENT_CLAIMS_DIR || '/run/cairn-agent' };
}
