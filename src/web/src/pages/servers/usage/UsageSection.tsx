import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { ServerDetail, UsageWindow } from '../../../api/types';
import { SelectField } from '../../../components/Field';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { UsageCharts } from './UsageCharts';
import './usage.css';

const windows: [UsageWindow, string][] = [['10m', 'Last 10 minutes'], ['1h', 'Last hour'], ['6h', 'Last 6 hours'], ['24h', 'Last 24 hours']];
/** Until the first answer names its interval: the Agent's sampling period. */
const firstIntervalSeconds = 10;
/** After a failed read: soon, so an alert from a Controller or Node restart goes within seconds of its return. */
const afterErrorMs = 2_000;

/**
 * The server's usage over a chosen window, read again at the window's sampling interval while
 * the page is open. The Node keeps the history, so a Node that does not answer has none to show.
 */
export function UsageSection({ server }: { server: ServerDetail }) {
  const [span, setSpan] = useState<UsageWindow>('1h');
  const usage = useQuery({
    queryKey: queryKeys.usage(server.id, span),
    queryFn: () => api.servers.usage(server.id, span),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.error ? afterErrorMs : (query.state.data?.intervalSeconds ?? firstIntervalSeconds) * 1000),
  });
  const choose = (value: string) => setSpan(windows.find(([w]) => w === value)?.[0] ?? span);
  let body: ReactNode;
  if (usage.error) body = <ProblemAlert error={usage.error} />;
  else if (!usage.data) body = <Loading what="usage" />;
  else if (usage.data.items.length === 0) body = <p>No usage recorded in this window yet: the Node takes a sample every {usage.data.intervalSeconds} s while the server runs.</p>;
  else body = <UsageCharts usage={usage.data} server={server} />;
  return (
    <section className="usage" aria-labelledby="usage-heading">
      <div className="usage-head">
        <h2 id="usage-heading">Usage</h2>
        <SelectField label="Window" value={span} onChange={(e) => choose(e.target.value)}>
          {windows.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
        </SelectField>
      </div>
      {body}
    </section>
  );
}
