/**
 * The walker thread's program (tree-walker.ts runs it). For each message `{ id, root }` it answers
 * `{ id, bytes }`: the bytes `root` and everything under it hold on disk (allocated blocks, as a
 * quota counts them, so a sparse file counts what it really takes); or `{ id, error }` when the
 * walk failed. It opens each directory relative to its parent's descriptor (`/proc/self/fd/N`)
 * and never follows a symlink, so a game swapping a directory for a link cannot make it count (or
 * reach) anything outside its root; it holds one descriptor per level, counts a hard-linked file
 * once, skips entries that vanish or change kind meanwhile, and a missing root holds 0 bytes.
 *
 * Synchronous calls on a thread of its own: each is a system call, not a trip through the thread
 * pool and back to the event loop. Evaluated rather than loaded from a file, so the thread runs
 * the same from source under tsx (whose loader a worker's own file would not get on Node 20) and
 * from dist; hence plain JavaScript that imports its modules itself.
 */
export const treeWalkProgram = String.raw`
Promise.all([import('node:fs'), import('node:worker_threads')]).then(([fs, { parentPort }]) => {
  const dirFlags = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
  const at = (fd, name) => '/proc/self/fd/' + fd + '/' + name;
  const orGone = (call) => {
    try {
      return call();
    } catch (e) {
      if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(e && e.code)) return undefined;
      throw e;
    }
  };
  const walkDir = (dir, walk) => {
    for (const name of orGone(() => fs.readdirSync(at(dir, ''))) ?? []) {
      const entry = orGone(() => fs.lstatSync(at(dir, name)));
      if (!entry) continue;
      if (entry.nlink > 1 && !entry.isDirectory()) {
        const key = entry.dev + ':' + entry.ino;
        if (walk.linked.has(key)) continue;
        walk.linked.add(key);
      }
      walk.bytes += entry.blocks * 512;
      if (!entry.isDirectory()) continue;
      const sub = orGone(() => fs.openSync(at(dir, name), dirFlags));
      if (sub === undefined) continue;
      try {
        walkDir(sub, walk);
      } finally {
        fs.closeSync(sub);
      }
    }
  };
  const treeBytes = (root) => {
    const fd = orGone(() => fs.openSync(root, dirFlags));
    if (fd === undefined) return 0;
    const walk = { bytes: 0, linked: new Set() };
    try {
      walk.bytes += fs.fstatSync(fd).blocks * 512;
      walkDir(fd, walk);
    } finally {
      fs.closeSync(fd);
    }
    return walk.bytes;
  };
  parentPort.on('message', ({ id, root }) => {
    let answer;
    try {
      answer = { id, bytes: treeBytes(root) };
    } catch (e) {
      answer = { id, error: { message: String(e && e.message), code: e && e.code } };
    }
    parentPort.postMessage(answer);
  });
});
`;
