const units = [
  { name: 'second', seconds: 1, below: 60 },
  { name: 'minute', seconds: 60, below: 60 },
  { name: 'hour', seconds: 3600, below: 48 },
  { name: 'day', seconds: 86_400, below: Infinity },
] as const;

/**
 * A wait as a person says it, "about 15 minutes" rather than "894.282 seconds": rounded to the
 * largest unit that still reads as a whole number below the next unit (59.6 seconds is "about 1
 * minute", not "about 60 seconds"); never less than one second.
 */
export function aboutDuration(seconds: number): string {
  const whole = Math.max(1, seconds);
  const unit = units.find((u) => Math.round(whole / u.seconds) < u.below) ?? units[units.length - 1];
  const count = Math.max(1, Math.round(whole / unit.seconds));
  return `about ${count} ${unit.name}${count === 1 ? '' : 's'}`;
}
