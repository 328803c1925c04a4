import type { GameIdentity } from './game-identity.js';

/** One entry of a game's filesystem view, in bubblewrap's terms. */
export type ViewEntry =
  | { kind: 'ro-bind'; path: string }
  | { kind: 'symlink'; target: string; path: string };

export interface BoxSpec {
  /** The game's uid and gid; null runs it as the Agent's user. */
  identity: GameIdentity | null;
  setpriv: string | null;
  /** The view; null runs the game in the host's. */
  view: { bwrap: string; entries: ViewEntry[]; serverDir: string; software: { from: string; at: string } } | null;
  /** `cgroup.procs` files the game joins before anything of it runs. */
  procsFiles: string[];
  /** The network namespace the game enters (its path under /run/netns); null keeps the host's network. */
  netns: { nsenter: string; path: string } | null;
}

/**
 * Joins the cgroups, then becomes the rest of the command. It runs as the shim's child before the
 * game exists, so every process of the game is born inside its limits. Arguments: the number of
 * files, the files, then the command.
 */
const joinGroupsScript = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';

/** The fd bubblewrap writes the id of its first process to (the shim reads it to find the game). */
export const boxInfoFd = 3;

/** `/a/b/c` → `/a`, `/a/b`: the directories above a path, shortest first. */
function ancestors(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts.slice(0, -1).map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

function viewArgs(view: NonNullable<BoxSpec['view']>): string[] {
  const args = [
    // The game's processes share one session and group led by the namespace's first process:
    // the shim signals that group, and the box's own monitor (outside it) is never hit.
    '--new-session', '--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    '--info-fd', String(boxInfoFd),
  ];
  for (const entry of view.entries) if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
  // First, so anything bound below /tmp (a checkout, a test's data dir) lands on the private one.
  args.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/tmp');
  // bubblewrap makes the directories above a bind 0700: the game could not walk to its own files.
  const made = new Set(['/tmp', '/proc', '/dev']);
  const bind = (flag: string, path: string) => {
    for (const dir of ancestors(path).filter((d) => !made.has(d))) {
      args.push('--perms', '0755', '--dir', dir);
      made.add(dir);
    }
    args.push(flag, path, path);
    made.add(path);
  };
  for (const entry of view.entries) if (entry.kind === 'ro-bind') bind('--ro-bind', entry.path);
  bind('--bind', view.serverDir);
  // Over the root's own `.cairn` (a mount point the Agent made): the game reads its software there and changes none of it.
  args.push('--ro-bind', view.software.from, view.software.at);
  args.push('--chdir', view.serverDir);
  return args;
}

function identityArgs(identity: GameIdentity): string[] {
  return [
    `--reuid=${identity.uid}`, `--regid=${identity.gid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all',
  ];
}

/** The command that runs `command args` in its box: cgroups joined, then the network, the view, the identity. */
export function boxedCommand(spec: BoxSpec, command: string, args: readonly string[]): { command: string; args: string[] } {
  let argv = [command, ...args];
  if (spec.identity && spec.setpriv) argv = [spec.setpriv, ...identityArgs(spec.identity), '--', ...argv];
  if (spec.view) argv = [spec.view.bwrap, ...viewArgs(spec.view), '--', ...argv];
  if (spec.netns) argv = [spec.netns.nsenter, `--net=${spec.netns.path}`, '--', ...argv];
  if (spec.procsFiles.length > 0) argv = ['/bin/sh', '-c', joinGroupsScript, 'cairn-box', String(spec.procsFiles.length), ...spec.procsFiles, ...argv];
  const [first, ...rest] = argv;
  return { command: first, args: rest };
}
