import { formatBytes } from '../../../../format/units';
import type { UploadProgress } from '../use-upload';

const filesWord = (n: number) => (n === 1 ? '1 file' : `${n} files`);

/** How far an upload is: bytes of all the files, and of the file under way (a big one takes minutes). */
export function UploadStatus({ progress }: { progress: UploadProgress }) {
  const { done, total, current, sent, size, sentBytes, totalBytes } = progress;
  return (
    <div className="progress" role="status">
      <div>
        <progress value={sentBytes} max={Math.max(totalBytes, 1)} aria-label="Upload progress" /> Uploading {filesWord(total)}: {formatBytes(sentBytes)} of {formatBytes(totalBytes)}
      </div>
      {current ? (
        <div>
          <progress value={sent} max={Math.max(size, 1)} aria-label={`Uploading ${current}`} /> {Math.min(done + 1, total)} of {total}: {current}, {formatBytes(sent)} of {formatBytes(size)}
        </div>
      ) : null}
    </div>
  );
}
