import { formatBytes } from '../../../../format/units';
import type { UploadProgress } from '../use-upload';

/** How far an upload is: files done of all, and the bytes sent of the file under way (a big one takes minutes). */
export function UploadStatus({ progress }: { progress: UploadProgress }) {
  const { done, total, current, sent, size } = progress;
  return (
    <div className="progress" role="status">
      <div>
        <progress value={done} max={total} aria-label="Upload progress" /> Uploading {Math.min(done + 1, total)} of {total}: {current}
      </div>
      {current ? (
        <div>
          <progress value={sent} max={Math.max(size, 1)} aria-label={`Uploading ${current}`} /> {formatBytes(sent)} of {formatBytes(size)}
        </div>
      ) : null}
    </div>
  );
}
