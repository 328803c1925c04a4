import { once } from 'node:events';
import { createServer } from 'node:net';
import { formatGamePorts } from '../../src/shared/game-ports.js';
import type { PortRange } from '../../src/shared/link/messages.js';

/**
 * Where test Agents' game ports come from: below Linux's ephemeral range (32768 and up, where
 * outgoing connections and port-0 listeners take their local ports) and above the default range
 * 25565-26564, so neither other programs' connections nor a Cairn started without `--game-ports`
 * take them.
 */
const band = { first: 27000, last: 32767 };
const blockSize = 200;

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, '0.0.0.0');
  try {
    await once(server, 'listening');
  } catch {
    return false;
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return true;
}

/**
 * A block of 200 game ports for one test Agent, starting anywhere in the band (not on block
 * boundaries, so test runs in parallel rarely pick the same first ports) and free a moment ago.
 */
export async function privateGamePorts(): Promise<PortRange> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = band.first + Math.floor(Math.random() * (band.last - band.first - blockSize + 2));
    const range = { first, last: first + blockSize - 1 };
    let free = true;
    for (let port = range.first; port <= range.last && free; port++) free = await isFree(port);
    if (free) return range;
  }
  throw new Error(`no free block of ${blockSize} ports in ${formatGamePorts(band)}`);
}

/** `--game-ports FIRST-LAST` for an Agent's command line. */
export const gamePortsArgs = (range: PortRange) => ['--game-ports', formatGamePorts(range)];
