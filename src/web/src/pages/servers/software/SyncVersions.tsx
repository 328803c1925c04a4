import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { useMe } from '../../../app/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatTime } from '../../../format/units';

/**
 * A global administrator's `Sync versions`: POST /software/sync, then each upstream's answer.
 * Others see nothing (the API refuses them). The template lists are read again afterwards, so
 * the Version selects offer what the upstreams list now.
 */
export function SyncVersions() {
  const me = useMe();
  const client = useQueryClient();
  const sync = useMutation({
    mutationFn: api.software.sync,
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.templates }),
  });
  if (!me.data?.globalAdmin) return null;
  return (
    <div className="sync-versions">
      <div className="actions">
        <button type="button" onClick={() => sync.mutate()} disabled={sync.isPending}>{sync.isPending ? 'Syncing versions…' : 'Sync versions'}</button>
      </div>
      <ProblemAlert error={sync.error} />
      {sync.data ? (
        <ul aria-label="Sync results">
          {sync.data.sources.map((s) => (
            <li key={s.source}>
              <code>{s.source}</code>:{' '}
              {s.ok
                ? `${s.versionCount} versions${s.syncedAt ? ` (synced ${formatTime(s.syncedAt)})` : ''}`
                : <span className="field-error">failed: {s.error ?? 'no reason given'}; the last good list stays in use ({s.versionCount} versions).</span>}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
