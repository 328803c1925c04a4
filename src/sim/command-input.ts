import { createInterface } from 'node:readline';

/** Calls `onCommand` for each non-empty stdin line, trimmed, in order. EOF ends input, not the program, as with a real server. */
export function readCommands(onCommand: (line: string) => void, input: NodeJS.ReadableStream = process.stdin): void {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  lines.on('line', (raw) => {
    const line = raw.trim();
    if (line !== '') onCommand(line);
  });
}
