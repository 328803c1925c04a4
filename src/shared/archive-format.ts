/**
 * The archive formats the files API extracts and writes, told by the file's name: the Controller
 * refuses an unknown one at once (a job that could only fail is never started), the Agent reads
 * and writes by the same rule. tar.zst is read only: Node 20's zlib has no zstd, and the pure-JS
 * decoder used (fzstd) has no encoder.
 */
export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz' | 'tar.zst';

const suffixes: readonly [string, ArchiveFormat][] = [
  ['.zip', 'zip'], ['.tar', 'tar'], ['.tar.gz', 'tar.gz'], ['.tgz', 'tar.gz'], ['.tar.zst', 'tar.zst'], ['.tzst', 'tar.zst'],
];

/** The format named by `path`'s ending (any case); undefined for anything else. */
export function archiveFormatOf(path: string): ArchiveFormat | undefined {
  const lower = path.toLowerCase();
  return suffixes.find(([suffix]) => lower.endsWith(suffix))?.[1];
}

/** Formats a compress may write. */
export const writableFormats: readonly ArchiveFormat[] = ['zip', 'tar', 'tar.gz'];

export const readableNames = '.zip, .tar, .tar.gz (.tgz), .tar.zst (.tzst)';
export const writableNames = '.zip, .tar, .tar.gz (.tgz)';
