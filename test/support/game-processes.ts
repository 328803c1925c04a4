import { readdir, readlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';

/** Whether a process with this pid exists (signal 0 checks without delivering anything). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the processes whose working directory is `dir` exactly (a server's games run in its root). */
export async function processesIn(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(join('/proc', entry, 'cwd')).catch(() => '');
    if (cwd === dir) pids.push(Number(entry));
  }
  return pids;
}

/** The first line a game server says to a client on `port` (simcraft's greeting names its port), or null. */
export function greetingOn(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (!text.includes('\n')) return;
      socket.destroy();
      resolve(text.slice(0, text.indexOf('\n')));
    });
    socket.once('close', () => resolve(null));
    socket.once('error', () => resolve(null));
  });
}
