/**
 * Link messages as JSON lines between Controllers: the same objects the Agent link carries, with
 * their bytes (file chunks) as base64 under `$bytes`, since JSON has no bytes of its own.
 */
export function toJsonLine(value: unknown): string {
  return `${JSON.stringify(value, function (this: Record<string, unknown>, key, encoded: unknown) {
    // The replacer sees a Buffer after its own toJSON; the holder's property still holds the bytes.
    const raw = this[key];
    return raw instanceof Uint8Array ? { $bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') } : encoded;
  })}\n`;
}

export function fromJsonLine<T>(line: string): T {
  return JSON.parse(line, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const bytes = (value as { $bytes?: unknown }).$bytes;
      if (typeof bytes === 'string' && Object.keys(value).length === 1) return Buffer.from(bytes, 'base64');
    }
    return value;
  }) as T;
}
