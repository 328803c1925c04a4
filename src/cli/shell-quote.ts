/** A word as a POSIX shell reads it back unchanged: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `host:port` for a command line, IPv6 literals in brackets. */
export const hostPort = (host: string, port: number) => (host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`);
