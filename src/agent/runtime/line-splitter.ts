/** Console lines longer than this are cut (the console contract of the API). */
export const MAX_LINE_BYTES = 16 * 1024;

/** Cuts to at most `maxBytes` without splitting a UTF-8 character. */
export function cutUtf8(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length <= maxBytes) return bytes;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end);
}

/**
 * Splits a byte stream into lines (`\n` or `\r\n`) with bounded memory: at most `maxBytes + 1`
 * bytes of a line are held, the rest is dropped until the next newline and the line is flagged cut.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private overflowed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly emit: (text: string, truncated: boolean) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this.hold(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.finishLine();
      start = newline + 1;
    }
  }

  /** Emits a last line that had no newline (the stream ended). */
  flush(): void {
    if (this.held > 0 || this.overflowed) this.finishLine();
  }

  private hold(piece: Buffer): void {
    // One byte beyond the limit is held so a `\r` right after a full-length line is not taken for a cut.
    const room = this.maxBytes + 1 - this.held;
    if (piece.length > room) this.overflowed = true;
    const kept = piece.length > room ? piece.subarray(0, room) : piece;
    if (kept.length === 0) return;
    // Copied because the stream may reuse the chunk's memory.
    this.parts.push(Buffer.from(kept));
    this.held += kept.length;
  }

  private finishLine(): void {
    let bytes = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.held);
    let truncated = this.overflowed;
    if (!truncated && bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > this.maxBytes) truncated = true;
    if (truncated) bytes = cutUtf8(bytes, this.maxBytes);
    this.parts = [];
    this.held = 0;
    this.overflowed = false;
    this.emit(bytes.toString('utf8'), truncated);
  }
}
