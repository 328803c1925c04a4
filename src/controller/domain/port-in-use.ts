import type { PortRange } from '../../shared/link/messages.js';
import type { StatusCondition } from './status.js';

/**
 * The conditions as shown: PORT_IN_USE (the Agent's words: which port another program holds)
 * followed by why the server stays there when the Controller found no port left to move it to.
 */
export function explainPortInUse(conditions: StatusCondition[], noPortLeft: PortRange | undefined): StatusCondition[] {
  if (!noPortLeft) return conditions;
  const why = ` No free port is left in the range ${noPortLeft.first}-${noPortLeft.last} to move the server to; free one on the host or give the Agent a wider --game-ports range.`;
  return conditions.map((c) => (c.reason === 'PORT_IN_USE' ? { ...c, message: `${c.message}${why}` } : c));
}
