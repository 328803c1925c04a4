import { useInfiniteQuery } from '@tanstack/react-query';
import type { Backup, BackupDestination, Page, PageQuery, ServerListItem } from '../../api/types';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { backupPollInterval } from './backup-format';
import { BackupTable } from './BackupTable';

const pageSize = 25;

interface BackupListProps {
  caption: string;
  queryKey: readonly unknown[];
  fetchPage: (query: PageQuery) => Promise<Page<Backup>>;
  serverName: (serverId: string) => string;
  showServer?: boolean;
  servers?: ServerListItem[];
  destinations?: BackupDestination[];
  /** More backups are on their way (a restore takes a PRE_RESTORE one): keep reading. */
  busy?: boolean;
}

/**
 * Backups as the API pages them, newest first, with `Load more`; read again every 2 s only while
 * one of them is unfinished, so the states move without a reload.
 */
export function BackupList({ caption, queryKey, fetchPage, serverName, showServer, servers, destinations, busy }: BackupListProps) {
  const backups = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage({ limit: pageSize, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: (query) => backupPollInterval(query.state.data?.pages, busy),
  });
  if (backups.isPending) return <Loading what="backups" />;
  return (
    <>
      <ProblemAlert error={backups.error} />
      {backups.data ? (
        <BackupTable caption={caption} backups={backups.data.pages.flatMap((p) => p.items)} serverName={serverName} showServer={showServer} servers={servers} destinations={destinations} />
      ) : null}
      {backups.hasNextPage ? (
        <div className="actions">
          <button type="button" onClick={() => void backups.fetchNextPage()} disabled={backups.isFetchingNextPage}>
            {backups.isFetchingNextPage ? 'Loading more…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </>
  );
}
