export const MiB = 1024 * 1024;

/** 1536 MiB → "1.5 GiB", 512 MiB → "512 MiB", 0 → "0 B"; binary units as the forms use. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || Number.isInteger(value) ? 0 : value < 10 ? 2 : 1;
  return `${Number(value.toFixed(digits))} ${units[unit]}`;
}

/** 500 → "500m (0.5 CPU)", 2000 → "2000m (2 CPU)". */
export function formatCpu(cpuMillis: number): string {
  return `${cpuMillis}m (${Number((cpuMillis / 1000).toFixed(3))} CPU)`;
}

/** 1500 → "1.5 CPU": capacity and usage (the API counts thousandths of a core). */
export const formatCores = (cpuMillis: number) => `${Number((cpuMillis / 1000).toFixed(3))} CPU`;

/**
 * A server's players as its Server List Ping answered: `{online: 3, max: 20}` → "3 / 20"; a
 * count alone (a list item, a usage sample) → "3"; neither → "unknown".
 */
export function formatPlayers(players: { online: number; max: number } | undefined, online?: number): string {
  if (players) return `${players.online} / ${players.max}`;
  return online === undefined ? 'unknown' : String(online);
}

/** The Memory (MiB) field's value for a byte count (rounded to whole MiB). */
export const bytesToMiB = (bytes: number) => Math.round(bytes / MiB);

/**
 * Parses a whole, positive number typed into a form field ("512", " 1 000 ") or answers
 * undefined, so the form can send nothing the API would refuse for its shape.
 */
export function parseWholeNumber(text: string): number | undefined {
  const cleaned = text.replace(/[\s_]/g, '');
  if (!/^\d+$/.test(cleaned)) return undefined;
  const n = Number(cleaned);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * "2026-11-23T20:31:57.629Z" → a short local date and time; with `seconds`, to the second, where
 * events a minute apart must be told apart (a PRE_RESTORE backup and the one restored from).
 */
export function formatTime(iso: string | undefined, { seconds = false } = {}): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' });
}
