import type { Socket } from 'node:net';
import { LineSplitter } from './line-splitter.js';
import { MAX_FRAME_BYTES } from './shim-protocol.js';

/** Feeds each newline-delimited frame of `socket` to `onFrame`; a frame over the limit is refused whole. */
export function readFrames(socket: Socket, onFrame: (frame: string) => void, onTooLong: () => void): void {
  const splitter = new LineSplitter(MAX_FRAME_BYTES, (text, truncated) => {
    if (truncated) onTooLong();
    else if (text.length > 0) onFrame(text);
  });
  socket.on('data', (chunk: Buffer) => splitter.push(chunk));
}
