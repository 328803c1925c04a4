import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { StatusCondition, ServerDetail } from '../../api/types';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { rememberServer } from '../../api/server-cache';

/** The server's conditions (Controller's and Agent's), each with Acknowledge until acknowledged. */
export function Conditions({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const acknowledge = useMutation({
    mutationFn: (condition: StatusCondition) => api.servers.acknowledge(server.id, condition.id),
    onSuccess: (detail) => rememberServer(client, detail),
  });
  const seen = new Set<string>();
  const conditions = [...server.conditions, ...server.status.conditions].filter((c) => !seen.has(c.id) && seen.add(c.id));
  if (conditions.length === 0) return null;
  return (
    <section aria-labelledby="conditions-heading">
      <h2 id="conditions-heading">Conditions</h2>
      <ul className="conditions">
        {conditions.map((c) => {
          const acked = server.acknowledgedConditions.includes(c.id) || server.acknowledgedConditions.includes(c.reason);
          return (
            <li key={c.id}>
              <span className="state bad">{c.reason}</span> {c.message} <span className="hint">({c.source}, since {formatTime(c.since)})</span>{' '}
              {acked ? <span className="hint">Acknowledged</span> : (
                <button type="button" onClick={() => acknowledge.mutate(c)} disabled={acknowledge.isPending}>Acknowledge</button>
              )}
            </li>
          );
        })}
      </ul>
      <ProblemAlert error={acknowledge.error} />
    </section>
  );
}
