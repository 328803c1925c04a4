import type { PortRange } from './link/messages.js';

/** The host ports an Agent offers for game servers unless `--game-ports` says otherwise. */
export const defaultGamePorts: PortRange = { first: 25565, last: 26564 };

/** What `--game-ports` accepts, for error messages. */
export const gamePortsRule = 'FIRST-LAST with 1024 <= FIRST <= LAST <= 65535';

/** Whether `range` is one an Agent may offer: unprivileged ports, first not above last. */
export const isGamePortRange = (range: PortRange): boolean =>
  Number.isInteger(range.first) && Number.isInteger(range.last) && range.first >= 1024 && range.first <= range.last && range.last <= 65535;

/** `FIRST-LAST` as a range; undefined when it is not one `isGamePortRange` accepts. */
export function parseGamePorts(raw: string): PortRange | undefined {
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(raw.trim());
  if (!match) return undefined;
  const range = { first: Number(match[1]), last: Number(match[2]) };
  return isGamePortRange(range) ? range : undefined;
}

export const formatGamePorts = (range: PortRange): string => `${range.first}-${range.last}`;
