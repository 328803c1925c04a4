import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../../../api/client';
import { queryKeys } from '../../../../api/query-keys';
import type { ArchiveJob } from '../../../../api/types';

const pollMs = 500;

/** What to start: extract an archive where it lies, or compress entries into a new archive. */
export type ArchiveRequest = { extract: string } | { compress: string[]; into: string };

/**
 * The Files tab's archive job: starts an extract or compress (the API answers 202 with the job at
 * once), then reads the job again until it has SUCCEEDED or FAILED, and tells `onFinished` once,
 * so the listings show what it wrote.
 */
export function useArchiveJob(serverId: string, onFinished: () => void) {
  const [jobId, setJobId] = useState<string>();
  const start = useMutation({
    mutationFn: (request: ArchiveRequest) => ('extract' in request
      ? api.files.extract(serverId, { path: request.extract })
      : api.files.compress(serverId, { paths: request.compress, into: request.into })),
    onSuccess: (job) => setJobId(job.id),
  });
  const job = useQuery({
    queryKey: queryKeys.servers.fileJob(serverId, jobId ?? ''),
    queryFn: () => api.files.job(serverId, jobId!),
    enabled: jobId !== undefined,
    initialData: start.data?.id === jobId ? start.data : undefined,
    refetchInterval: (query) => (query.state.data?.state === 'RUNNING' ? pollMs : false),
  });
  const finished = job.data !== undefined && job.data.state !== 'RUNNING';
  useEffect(() => {
    if (finished) onFinished();
    // Once per job, not per render: onFinished is a new function at every render of the tab.
  }, [finished, jobId]);
  const shown: ArchiveJob | undefined = jobId ? job.data : undefined;
  return { start, job: shown, error: start.error ?? job.error, dismiss: () => { setJobId(undefined); start.reset(); } };
}
