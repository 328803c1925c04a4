const units: [number, string][] = [[3600, 'hour'], [60, 'minute'], [1, 'second']];

/** 600 → "10 minutes", 90 → "1 minute 30 seconds", 86400 → "24 hours": a number of seconds as people say it. */
export function formatSeconds(total: number): string {
  let left = total;
  const parts: string[] = [];
  for (const [size, name] of units) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
  }
  return parts.join(' ') || '0 seconds';
}
