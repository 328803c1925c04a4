/** What the check before a start found: the game port free, or held by another program (and the condition's words). */
export type PortCheckResult = { held: false } | { held: true; message: string };

/** A start refused for a held port is tried again after this long (the program holding it may go). */
export const portRecheckMs = 10_000;

interface PortFacts {
  desired: { serverId: string; gamePort: number };
  conditions: { id: string; reason: string; message: string; since: string }[];
  portInUse?: number;
}

/** What the two patches change of the machine's context. */
type PortPatch = Partial<Pick<PortFacts, 'conditions' | 'portInUse'>>;

/** The PORT_IN_USE condition for the desired port; it keeps its `since` while the same port stays held. */
export function notePortInUse(context: PortFacts, found: PortCheckResult | undefined): PortPatch {
  if (!found?.held) return {};
  const { serverId, gamePort } = context.desired;
  const kept = context.portInUse === gamePort ? context.conditions.find((c) => c.reason === 'PORT_IN_USE') : undefined;
  return {
    portInUse: gamePort,
    conditions: [
      ...context.conditions.filter((c) => c.reason !== 'PORT_IN_USE'),
      { id: `${serverId}:port-in-use`, reason: 'PORT_IN_USE', message: found.message, since: kept?.since ?? new Date().toISOString() },
    ],
  };
}

/** The game runs, or is no longer wanted running: no port stands in its way any more. */
export const clearPortInUse = (context: PortFacts): PortPatch =>
  (context.portInUse === undefined ? {} : { portInUse: undefined, conditions: context.conditions.filter((c) => c.reason !== 'PORT_IN_USE') });
