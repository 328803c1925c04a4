import { spawn } from 'node:child_process';

/** Every network command is small; one that hangs must not hold a game's start forever. */
const commandTimeoutMs = 10_000;

/** Runs `command args` with `input` on its stdin; rejects with its stderr when it fails or takes too long. */
export function runCommand(command: string, args: readonly string[], input = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'], timeout: commandTimeoutMs });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || (signal ? `killed by ${signal}` : `exit ${code}`)}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}
