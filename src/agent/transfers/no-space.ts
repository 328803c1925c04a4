import { statfs } from 'node:fs/promises';
import { agentErrorFromErrno } from '../errors.js';

/**
 * How a program says that a write failed for want of space: strerror(ENOSPC) and strerror(EDQUOT)
 * as the JVM (`java.io.IOException: No space left on device`) and Node print them.
 */
const noSpaceText = /no space left on device|disk quota exceeded/i;

export const saysNoSpace = (text: string): boolean => noSpaceText.test(text);

export const noSpaceError = () => agentErrorFromErrno({ code: 'ENOSPC' })!;

/**
 * Whether the file system holding `root` has not one block left, for anyone (the blocks kept
 * for root count as free: a game running as root could still save into them).
 */
export async function isDiskFull(root: string): Promise<boolean> {
  const info = await statfs(root).catch(() => undefined);
  return info !== undefined && info.blocks > 0 && info.bfree === 0;
}
