/** Each value the items have and how many have it, most first (a tie by name), for the count tables. */
export function tally<T, K extends string>(items: readonly T[], key: (item: T) => K): [K, number][] {
  const counts = new Map<K, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
}
