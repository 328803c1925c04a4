// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Extracts an archive or writes one, inside the server's root, as the server's user. Answered by
 * ArchiveProgress parts while it works (one per entry put in place for an extract, as the bytes
 * grow for a compress) and a last ArchiveProgress when done; a refusal (an entry with `..`, an
 * absolute path, a link or a device, the disk limit) fails the request naming the entry. Each
 * file is written to a temporary name and renamed into place when whole.
 */
export interface FileArchiveJobInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * "EXTRACT" or "COMPRESS".
   */
  'kind'?: (string);
  /**
   * EXTRACT: the archive, relative to the root (.zip, .tar, .tar.gz, .tgz, .tar.zst, .tzst).
   */
  'path'?: (string);
  /**
   * COMPRESS: the files and directories to put in the archive, relative to the root.
   */
  'paths'?: (string)[];
  /**
   * EXTRACT: the directory to extract into (made when missing); COMPRESS: the archive to write
   * (.zip, .tar, .tar.gz, .tgz), which must not exist.
   */
  'into'?: (string);
}

/**
 * Extracts an archive or writes one, inside the server's root, as the server's user. Answered by
 * ArchiveProgress parts while it works (one per entry put in place for an extract, as the bytes
 * grow for a compress) and a last ArchiveProgress when done; a refusal (an entry with `..`, an
 * absolute path, a link or a device, the disk limit) fails the request naming the entry. Each
 * file is written to a temporary name and renamed into place when whole.
 */
export interface FileArchiveJob {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * "EXTRACT" or "COMPRESS".
   */
  'kind': (string);
  /**
   * EXTRACT: the archive, relative to the root (.zip, .tar, .tar.gz, .tgz, .tar.zst, .tzst).
   */
  'path': (string);
  /**
   * COMPRESS: the files and directories to put in the archive, relative to the root.
   */
  'paths': (string)[];
  /**
   * EXTRACT: the directory to extract into (made when missing); COMPRESS: the archive to write
   * (.zip, .tar, .tar.gz, .tgz), which must not exist.
   */
  'into': (string);
}
