import { lstat, rename } from 'node:fs/promises';
import { AgentError, agentErrorFromErrno, isAgentError } from '../errors.js';
import { errnoOf, withPlace, type Place } from './beneath.js';
import type { HiddenFile } from './files.js';

type Side = 'from' | 'to';

/** The walk's refusals (and the file system's) name `path`; a move has two, so each names the side it is about. */
async function onSide<T>(side: Side, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    const refusal = isAgentError(e) ? e : agentErrorFromErrno(e);
    if (refusal?.message.startsWith('path: ')) throw new AgentError(refusal.code, `${side}: ${refusal.message.slice('path: '.length)}`);
    throw refusal ?? e;
  }
}

/**
 * A directory moved away from the forwarding secret would carry it where the files API shows it;
 * one moved onto its place would put the operator's file there. So neither side may be the
 * secret's file or a directory above it, links resolved.
 */
function refuseHidden(side: Side, place: Place, hidden: HiddenFile): void {
  if (hidden === undefined) return;
  const secret = hidden.split('/');
  if (place.resolved.length <= secret.length && place.resolved.every((name, i) => name === secret[i])) {
    throw new AgentError('READ_ONLY', `${side}: ${place.relative} holds the network's forwarding secret; the files API never moves it.`);
  }
}

async function exists(place: Place): Promise<boolean> {
  try {
    await lstat(place.path);
    return true;
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return false;
    throw e;
  }
}

/**
 * Moves or renames `from` to `to` inside the root; a symlink is moved itself, never what it points
 * to. Both are found as writes are (`.cairn` is READ_ONLY, links leading out are refused); `to` must
 * not exist and its directory must.
 */
export async function movePath(root: string, from: string, to: string, hidden?: HiddenFile): Promise<void> {
  await onSide('from', () => withPlace(root, from, 'write', async (source) => {
    if (source.isRoot) throw new AgentError('INVALID_PATH', 'from: the server\'s root itself cannot be moved.');
    refuseHidden('from', source, hidden);
    if (!(await exists(source))) throw new AgentError('NOT_FOUND', `from: ${source.relative} does not exist.`);
    await onSide('to', () => withPlace(root, to, 'write', async (target) => {
      if (target.isRoot) throw new AgentError('ALREADY_EXISTS', 'to: the server\'s root already exists.');
      refuseHidden('to', target, hidden);
      // rename(2) would replace a file or an empty directory there without a word; Node has no RENAME_NOREPLACE.
      if (await exists(target)) throw new AgentError('ALREADY_EXISTS', `to: ${target.relative} already exists.`);
      try {
        await rename(source.path, target.path);
      } catch (e) {
        const code = errnoOf(e);
        if (code === 'EINVAL') throw new AgentError('INVALID_PATH', `to: ${target.relative} is inside ${source.relative}; a directory cannot be moved into itself.`);
        if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new AgentError('ALREADY_EXISTS', `to: ${target.relative} already exists.`);
        if (code === 'ENOENT') throw new AgentError('NOT_FOUND', `from: ${source.relative} does not exist.`);
        throw e;
      }
    }));
  }));
}
