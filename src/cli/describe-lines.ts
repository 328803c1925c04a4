/** `Label:  value` lines, values aligned; an empty value reads `<none>`. */
export function fields(pairs: [string, string | number | undefined][]): string {
  const width = Math.max(...pairs.map(([label]) => label.length)) + 2;
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width)}${value === undefined || value === '' ? '<none>' : value}\n`).join('');
}

/** A block under its title, two spaces in. */
export const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');
