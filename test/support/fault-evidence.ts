import type { FaultCluster } from './fault-cluster.js';

/**
 * What the logs say about who drove each Node: no Node was driven by two Controllers when
 * - each lease term of a Node was gained by one Controller process only (`lease_gained`: the store's compare-and-set),
 * - each Agent obeyed terms only upward (`lease_term_raised`), each of them one a Controller gained for its Node,
 * and the fences did their part where they were tested: the Agents' refusals (`stale_term_refused`) and
 * the store's (`fenced_write_refused`) are counted.
 */
export interface LeaseEvidence {
  /** Each finding that some Node was or could have been driven by two Controllers. */
  doubleDriven: string[];
  termsGained: number;
  termsObeyed: number;
  staleTermRefusals: number;
  fencedWritesRefused: number;
  /** Streams the Agents left because their Controller said nothing for its silence limit (`controller_silent`). */
  silentControllersLeft: number;
}

export function leaseEvidence(cluster: FaultCluster): LeaseEvidence {
  const doubleDriven: string[] = [];
  const gainedBy = new Map<string, number>();
  let termsGained = 0;
  let fencedWritesRefused = 0;
  cluster.controllerLogs().forEach((lines, processIndex) => {
    for (const line of lines) {
      if (line.event === 'fenced_write_refused') fencedWritesRefused++;
      if (line.event !== 'lease_gained') continue;
      termsGained++;
      const key = `${String(line.nodeId)}@${String(line.term)}`;
      const other = gainedBy.get(key);
      if (other !== undefined && other !== processIndex) doubleDriven.push(`term ${String(line.term)} of ${String(line.nodeId)} gained by two Controller processes`);
      gainedBy.set(key, processIndex);
    }
  });
  let termsObeyed = 0;
  let staleTermRefusals = 0;
  let silentControllersLeft = 0;
  cluster.agentLogs().forEach((lines, i) => {
    const nodeId = cluster.hosts[i].nodeId;
    let highest = 0;
    for (const line of lines) {
      if (line.event === 'stale_term_refused') staleTermRefusals++;
      if (line.event === 'controller_silent') silentControllersLeft++;
      if (line.event !== 'lease_term_raised') continue;
      termsObeyed++;
      const term = Number(line.term);
      if (term <= highest) doubleDriven.push(`the Agent of ${nodeId} obeyed term ${term} after ${highest}`);
      if (!gainedBy.has(`${nodeId}@${term}`)) doubleDriven.push(`the Agent of ${nodeId} obeyed term ${term}, which no Controller gained`);
      highest = Math.max(highest, term);
    }
  });
  return { doubleDriven, termsGained, termsObeyed, staleTermRefusals, fencedWritesRefused, silentControllersLeft };
}
