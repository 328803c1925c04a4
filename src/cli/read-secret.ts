import { createInterface } from 'node:readline';

/** Reads one line from stdin (for --password-stdin), so a password never sits in shell history or `ps`. */
export async function readLineFromStdin(): Promise<string> {
  const rl = createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    rl.close();
    return line;
  }
  return '';
}
