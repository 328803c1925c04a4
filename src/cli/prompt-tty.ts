import { closeSync, openSync } from 'node:fs';
import { ReadStream, WriteStream } from 'node:tty';
import { read } from 'read';
import { CliError } from './errors.js';

/** The terminal's descriptor for `flags`, or undefined without one (a script, CI, a service). */
function openTerminal(flags: 'r' | 'w'): number | undefined {
  try {
    return openSync('/dev/tty', flags);
  } catch {
    return undefined;
  }
}

/**
 * Asks for a secret (a password, an authentication code) on the terminal itself (/dev/tty), not
 * stdin, and shows nothing of what is typed: `cairn login --password-stdin` reads the password
 * from piped stdin, so a question after it has only the terminal to go to. Undefined without a
 * terminal: the caller says which option to pass instead. Input and output get a descriptor
 * each, so closing one stream never closes the other's.
 */
export async function promptSecret(question: string): Promise<string | undefined> {
  const inFd = openTerminal('r');
  const outFd = openTerminal('w');
  if (inFd === undefined || outFd === undefined) {
    for (const fd of [inFd, outFd]) if (fd !== undefined) closeSync(fd);
    return undefined;
  }
  const input = new ReadStream(inFd);
  const output = new WriteStream(outFd);
  try {
    return await read<string>({ prompt: question, silent: true, replace: '', input, output });
  } catch (e) {
    // Ctrl-C while asked: the terminal is in raw mode, so it arrives as a keystroke, not a signal.
    if ((e as Error).message === 'canceled') throw new CliError('cancelled');
    throw e;
  } finally {
    input.destroy();
    // The typed line was not echoed, its newline neither: end the prompt's line here.
    output.end('\n');
  }
}
