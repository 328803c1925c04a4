import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';

/** How long a launcher gets to print its version: a real one answers well within it. */
export const javaProbeDeadlineMs = 5000;

/** Output beyond this is not a version banner; the rest is not kept. */
const maxOutputBytes = 16 * 1024;

export type ProbeOutcome = { output: string } | { failed: string };

/**
 * Runs `<path> -version` (which prints to stderr) and answers what it printed, or why it gave
 * nothing usable. The launcher runs in a process group of its own, so a deadline kills whatever
 * it started too and nothing keeps the answer waiting.
 */
export function probeJava(path: string, deadlineMs = javaProbeDeadlineMs): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const child = spawn(path, ['-version'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const keep = (chunk: Buffer) => {
      if (size >= maxOutputBytes) return;
      chunks.push(chunk);
      size += chunk.length;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
      settle({ failed: `no answer within ${deadlineMs} ms` });
    }, deadlineMs);
    child.on('error', (err: NodeJS.ErrnoException) => settle({ failed: err.code ?? err.message }));
    child.on('close', (code, signal) => {
      if (code === 0) settle({ output: Buffer.concat(chunks).toString('utf8') });
      else settle({ failed: signal ? `killed by ${signal}` : `exit status ${code}` });
    });
  });
}

/** Answers kept per launcher, with the file's identity they were read from. */
const answered = new Map<string, { identity: string; outcome: Promise<ProbeOutcome> }>();

/**
 * `probeJava`, asked once per launcher per process while the file stays the same (device, inode, size,
 * modification and change times): a process that hosts many Agents (the fleet bench's 5,000, the tests') would
 * otherwise start every JVM once per Agent. Only an answer is kept; a failure is tried again.
 */
export async function probeJavaOnce(path: string, deadlineMs = javaProbeDeadlineMs): Promise<ProbeOutcome> {
  const info = await stat(path).catch(() => null);
  if (!info) return probeJava(path, deadlineMs);
  const identity = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  const kept = answered.get(path);
  if (kept?.identity === identity) return kept.outcome;
  const outcome = probeJava(path, deadlineMs);
  answered.set(path, { identity, outcome });
  void outcome.then((o) => {
    if ('failed' in o && answered.get(path)?.outcome === outcome) answered.delete(path);
  });
  return outcome;
}
