import { Worker } from 'node:worker_threads';
import { treeWalkProgram } from './tree-bytes.js';

/** What the walker thread is asked, and answers (tree-bytes.ts). */
interface WalkRequest { id: number; root: string }
type WalkAnswer = { id: number; bytes: number } | { id: number; error: { message: string; code?: string } };

interface Pending {
  resolve: (bytes: number) => void;
  reject: (err: Error) => void;
}

/**
 * The Agent's disk walks, on a thread of their own. Through the thread pool each of a walk's
 * system calls (open, readdir, lstat, close: about 15 for a small server's tree) was a trip through
 * the pool and back to the event loop; a quiet server is walked every minute, so 12,500 servers in
 * one process took about a quarter of a core and half of its main thread's busy time (bench/fleet.md).
 * On this thread the same walk is its system calls alone, and the event loop only hears the answer.
 * One thread per process: walks share the disk anyway. It holds no process open, and one that
 * dies fails the walks it had and is started again by the next.
 */
class TreeWalker {
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  bytes(root: string): Promise<number> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, root } satisfies WalkRequest);
    });
  }

  private start(): Worker {
    const worker = new Worker(treeWalkProgram, { eval: true });
    worker.unref();
    worker.on('message', (answer: WalkAnswer) => {
      const waiting = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if ('bytes' in answer) waiting?.resolve(answer.bytes);
      else waiting?.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
    });
    const failAll = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the disk walker's thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const walker = new TreeWalker();

/** The bytes `root` and everything under it hold on disk, walked on the walker's thread (what it counts: tree-bytes.ts). */
export const treeBytes = (root: string): Promise<number> => walker.bytes(root);
