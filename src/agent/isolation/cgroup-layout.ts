/**
 * Where this host's cgroup controllers are. cgroup v2 puts every controller in one tree; hosts
 * with only v1 controllers (this project's CI among them) mount one hierarchy per controller, and
 * may also mount an empty v2 tree beside them, which holds no controller and is of no use here.
 */
export type CgroupLayout =
  | { version: 2; root: string }
  | { version: 1; memory: string | null; cpu: string | null; cpuacct: string | null; pids: string | null };

interface Mount {
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** The mounts of `/proc/self/mountinfo` text (fields after ` - ` are fs type, source, super options). */
export function parseMountInfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const mountPoint = left.split(' ')[4];
    const [fsType, , options = ''] = right.split(' ');
    if (mountPoint && fsType) mounts.push({ mountPoint: unescapeMountPath(mountPoint), fsType, superOptions: options.split(',') });
  }
  return mounts;
}

/** mountinfo escapes spaces, tabs, newlines and backslashes as octal. */
const unescapeMountPath = (path: string) => path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/**
 * The layout from the mounts and the v2 root's controllers (`cgroup.controllers` of the cgroup2
 * mount, or null when that file could not be read). A v2 tree is used only when it has the
 * memory controller; otherwise the v1 hierarchies are.
 */
export function cgroupLayoutOf(mounts: Mount[], v2Controllers: (mountPoint: string) => string | null): CgroupLayout | null {
  for (const mount of mounts.filter((m) => m.fsType === 'cgroup2')) {
    const controllers = (v2Controllers(mount.mountPoint) ?? '').trim().split(/\s+/);
    if (controllers.includes('memory')) return { version: 2, root: mount.mountPoint };
  }
  const v1 = (name: string) => mounts.find((m) => m.fsType === 'cgroup' && m.superOptions.includes(name))?.mountPoint ?? null;
  const layout = { version: 1 as const, memory: v1('memory'), cpu: v1('cpu'), cpuacct: v1('cpuacct'), pids: v1('pids') };
  return layout.memory || layout.cpu || layout.pids ? layout : null;
}
