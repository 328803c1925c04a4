/** The installed software's directory: listed, never changed (the API answers read_only). */
export const softwareDir = '.cairn';

/** `.` is the server's root; children are joined without a leading `./`. */
export const joinPath = (dir: string, name: string) => (dir === '.' ? name : `${dir}/${name}`);

export const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.');

export const isReadOnly = (path: string) => path === softwareDir || path.startsWith(`${softwareDir}/`);

/** `a/b/c` → [['a','a'], ['b','a/b'], ['c','a/b/c']] for breadcrumbs. */
export function crumbs(path: string): [string, string][] {
  if (path === '.') return [];
  const parts = path.split('/');
  return parts.map((name, i) => [name, parts.slice(0, i + 1).join('/')]);
}

/**
 * The directories a folder upload needs, parents before children: for `site/css/a.css` and
 * `site/b.html` under `dir`, `dir/site` then `dir/site/css`.
 */
export function directoriesFor(dir: string, relativePaths: string[]): string[] {
  const dirs = new Set<string>();
  for (const relative of relativePaths) {
    const parts = relative.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(joinPath(dir, parts.slice(0, i).join('/')));
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}
