import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Webhook, WebhookDelivery } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';

/** A PENDING delivery is retried after 1 s first: read the list as often while one is. */
const pendingPollMs = 1_000;

const tones: Record<WebhookDelivery['state'], string> = { PENDING: 'busy', DELIVERED: 'good', FAILED: 'bad' };

/** The endpoint's last answer: its status, or why no answer came. */
const lastAnswer = (d: WebhookDelivery) => [d.lastStatus === undefined ? '' : `HTTP ${d.lastStatus}`, d.lastError ?? ''].filter(Boolean).join(': ') || '—';

const columns: Column<WebhookDelivery>[] = [
  { header: 'Event', essential: true, cell: (d) => <code>{d.event}</code> },
  { header: 'State', essential: true, cell: (d) => <span className={`state ${tones[d.state]}`}>{d.state}</span> },
  { header: 'Attempts', cell: (d) => d.attempts },
  { header: 'Last answer', essential: true, cell: lastAnswer },
  { header: 'Created', cell: (d) => formatTime(d.createdAt) },
];

/** One webhook's deliveries, newest first, read again while one is still PENDING. */
export function WebhookDeliveries({ webhook }: { webhook: Webhook }) {
  const pager = useCursorPager();
  const deliveries = useQuery({
    queryKey: queryKeys.webhooks.deliveries.list(webhook.id, pager.cursor),
    queryFn: () => api.webhooks.deliveries(webhook.id, { cursor: pager.cursor }),
    refetchInterval: (query) => (query.state.data?.items.some((d) => d.state === 'PENDING') ? pendingPollMs : false),
  });
  const heading = `Deliveries of ${webhook.name}`;
  return (
    <section className="card wide" aria-label={heading}>
      <h2>{heading}</h2>
      <p className="hint">A failed try is retried after 1 s, 5 s, 30 s, 2 min and 10 min; a delivery that never got a 2xx answer then ends FAILED.</p>
      <ProblemAlert error={deliveries.error} />
      {deliveries.data ? <DataTable caption={heading} columns={columns} rows={deliveries.data.items} rowKey={(d) => d.id} empty="No deliveries yet." /> : deliveries.error ? null : <Loading what="deliveries" />}
      <Pager pager={pager} nextCursor={deliveries.data?.nextCursor} label="Delivery pages" />
    </section>
  );
}
