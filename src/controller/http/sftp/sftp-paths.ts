/**
 * An SFTP path as the files API's: relative to the server's root, `/` the root itself. A path that
 * climbs above the root with `..` is refused (undefined) rather than clamped, so a client asking
 * for `../../etc` is told no instead of being handed the root's `etc`.
 */
export function apiPath(sftpPath: string): string | undefined {
  if (sftpPath.includes('\0')) return undefined;
  const parts: string[] = [];
  for (const segment of sftpPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}

/** The absolute form a client is shown (REALPATH). */
export const shownPath = (path: string): string => `/${path}`;

/** The parent directory and last name of an API path (`''` is the root). */
export function splitPath(path: string): { dir: string; name: string } {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? { dir: '', name: path } : { dir: path.slice(0, slash), name: path.slice(slash + 1) };
}
