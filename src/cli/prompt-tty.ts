import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/**
 * Asks on the terminal itself (/dev/tty), not stdin: `cairn login` reads the password from piped
 * stdin, so a question after it has only the terminal to go to. Undefined without a terminal
 * (a script, CI): the caller says which option to pass instead.
 */
export async function promptTerminal(question: string): Promise<string | undefined> {
  const tty = await open('/dev/tty', 'r+').catch(() => undefined);
  if (!tty) return undefined;
  const input = tty.createReadStream();
  const output = tty.createWriteStream();
  const rl = createInterface({ input, output, terminal: false });
  try {
    output.write(question);
    for await (const line of rl) return line;
    return undefined;
  } finally {
    rl.close();
    input.destroy();
    output.destroy();
    await tty.close().catch(() => undefined);
  }
}
