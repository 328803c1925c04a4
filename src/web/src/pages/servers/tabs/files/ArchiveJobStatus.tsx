import type { ArchiveJob } from '../../../../api/types';
import { formatBytes } from '../../../../format/units';

const entriesWord = (n = 0) => (n === 1 ? '1 entry' : `${n} entries`);

/** An extract or compress under way or done: its counts, and on failure the API's reason and what it had already written. */
export function ArchiveJobStatus({ job, onDismiss }: { job: ArchiveJob; onDismiss: () => void }) {
  const extract = job.kind === 'EXTRACT';
  const counts = `${entriesWord(job.entries)}, ${formatBytes(job.bytes ?? 0)}`;
  if (job.state === 'FAILED') {
    return (
      <div role="alert" className="problem">
        <strong>{extract ? `Extracting ${job.path} failed.` : `Compressing into ${job.into} failed.`}</strong> {job.error}
        {job.written?.length ? <p>Already written: <span className="mono">{job.written.join(', ')}</span></p> : null}
        <button type="button" onClick={onDismiss}>Dismiss</button>
      </div>
    );
  }
  const running = job.state === 'RUNNING';
  const text = extract
    ? `${running ? 'Extracting' : 'Extracted'} ${job.path} into ${job.into === '.' ? 'the server root' : job.into}: ${counts}`
    : `${running ? 'Compressing into' : 'Compressed into'} ${job.into}: ${counts}`;
  return (
    <div role="status" className="progress">
      {running ? <progress aria-label={extract ? `Extracting ${job.path}` : `Compressing into ${job.into}`} /> : null} {text}
      {running ? null : <> <button type="button" onClick={onDismiss}>Dismiss</button></>}
    </div>
  );
}
