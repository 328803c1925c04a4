/**
 * Kubernetes quantities for CPU and memory (`500m`, `2`, `512Mi`, `2Gi`, `1G`), so flags and apply
 * files read as they do in kubectl. Parsing is exact (decimal arithmetic on the text, no floats):
 * an amount that is not a whole number of millicores or bytes is refused rather than rounded.
 */

const binary: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const decimal: Record<string, bigint> = { k: 10n ** 3n, M: 10n ** 6n, G: 10n ** 9n, T: 10n ** 12n, P: 10n ** 15n, E: 10n ** 18n };

export class QuantityError extends Error {}

/** `text` as a fraction `numerator / denominator` in the unit the suffix names. */
function parse(text: string, what: string): { numerator: bigint; denominator: bigint } {
  const m = /^(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$/.exec(text.trim());
  if (!m) throw new QuantityError(`${what} ${JSON.stringify(text)} is not a quantity (e.g. ${what === 'cpu' ? '500m or 2' : '512Mi or 2Gi'})`);
  const [whole, fraction = ''] = m[1].split('.');
  const digits = BigInt(`${whole || '0'}${fraction}`);
  const scale = 10n ** BigInt(fraction.length);
  const suffix = m[2] as string | undefined;
  if (suffix === undefined) return { numerator: digits, denominator: scale };
  if (suffix === 'm') return { numerator: digits, denominator: scale * 1000n };
  return { numerator: digits * (suffix in binary ? binary[suffix] : decimal[suffix]), denominator: scale };
}

function whole(n: bigint, d: bigint, text: string, what: string, unit: string): number {
  if (n % d !== 0n) throw new QuantityError(`${what} ${JSON.stringify(text)} is not a whole number of ${unit}`);
  const value = n / d;
  if (value < 1n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new QuantityError(`${what} ${JSON.stringify(text)} is out of range`);
  return Number(value);
}

/** CPU cores as millicores: `500m` → 500, `2` → 2000, `0.25` → 250. */
export function parseCpu(text: string): number {
  const { numerator, denominator } = parse(text, 'cpu');
  return whole(numerator * 1000n, denominator, text, 'cpu', 'millicores');
}

/** Bytes: `512Mi` → 536870912, `1G` → 1000000000, `1024` → 1024. */
export function parseMemory(text: string): number {
  const { numerator, denominator } = parse(text, 'memory');
  return whole(numerator, denominator, text, 'memory', 'bytes');
}

/** Millicores as the shortest exact quantity: 2000 → `2`, 500 → `500m`. */
export function formatCpu(millis: number): string {
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
}

const binaryUnits = Object.entries(binary).reverse();

/** Bytes as the largest binary unit that divides them exactly (`512Mi`, `2Gi`), else plain bytes. */
export function formatMemory(bytes: number): string {
  for (const [suffix, size] of binaryUnits) if (bytes > 0 && BigInt(bytes) % size === 0n) return `${BigInt(bytes) / size}${suffix}`;
  return String(bytes);
}

/** Bytes for people: the largest binary unit of at least 1, one decimal when not whole (`1.5Gi`, `300Mi`). */
export function humanBytes(bytes: number): string {
  for (const [suffix, size] of binaryUnits) {
    const value = bytes / Number(size);
    if (value >= 1) return `${Number.isInteger(value) ? value : value.toFixed(1).replace(/\.0$/, '')}${suffix}`;
  }
  return String(bytes);
}
