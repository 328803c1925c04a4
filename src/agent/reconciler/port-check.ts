import { createServer } from 'node:net';
import { withDeadline } from '../../shared/deadline.js';

/** A bind that has not settled by then says nothing: the start goes ahead and the game meets what it meets. */
const portCheckDeadlineMs = 2000;

/**
 * Whether another program holds `port` on `host`: a listener is bound there the way the game
 * binds it, and closed at once. Only EADDRINUSE counts as held; any other failure (an address the
 * host lacks, a late answer) leaves the game to report its own error.
 */
export async function portHeld(port: number, host: string, deadlineMs = portCheckDeadlineMs): Promise<boolean> {
  const server = createServer();
  const bound = new Promise<boolean>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
  try {
    return await withDeadline(bound, deadlineMs, `binding port ${port}`);
  } catch {
    server.close();
    return false;
  }
}

/** The PORT_IN_USE condition's words: the port, and that another program holds it. */
export const portInUseMessage = (port: number, host: string) =>
  `Port ${port} is held by another program on the host (${host}:${port} cannot be bound); the game was not started on it.`;
