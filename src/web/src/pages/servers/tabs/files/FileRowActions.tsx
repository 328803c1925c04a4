import { api } from '../../../../api/client';
import type { FileItem } from '../../../../api/types';
import { isReadOnly } from '../file-paths';
import { isArchive } from './archive-names';
import type { MoveKind } from './MoveDialog';

/** Files larger than this are downloaded, not opened in the editor. */
const editableBytes = 2 * 1024 * 1024;

interface FileRowActionsProps {
  serverId: string;
  item: FileItem;
  /** While an archive job starts, its buttons wait. */
  busy: boolean;
  onEdit: (path: string) => void;
  onMove: (kind: MoveKind, item: FileItem) => void;
  onDelete: (item: FileItem) => void;
  onExtract: (item: FileItem) => void;
  onCompress: (item: FileItem) => void;
}

/**
 * One entry's actions, each named with the entry (`Extract pack.zip here`, `Download world as
 * zip`) so every row's button has its own accessible name. Downloads are plain links: the session
 * cookie goes with them, and the browser saves the stream itself.
 */
export function FileRowActions({ serverId, item: f, busy, onEdit, onMove, onDelete, onExtract, onCompress }: FileRowActionsProps) {
  const readOnly = isReadOnly(f.path);
  const file = f.type === 'FILE';
  return (
    <div className="actions tight">
      {file ? <a className="button" href={api.files.downloadUrl(serverId, f.path)} download={f.name} aria-label={`Download ${f.name}`}>Download</a> : null}
      {/* The archive API leaves `.cairn` out, so its zip would be empty. */}
      {f.type === 'DIRECTORY' && !readOnly ? <a className="button" href={api.files.archiveUrl(serverId, f.path)} download={`${f.name}.zip`} aria-label={`Download ${f.name} as zip`}>Download as zip</a> : null}
      {file && f.sizeBytes <= editableBytes
        ? <button type="button" onClick={() => onEdit(f.path)} aria-label={`${readOnly ? 'View' : 'Edit'} ${f.name}`}>{readOnly ? 'View' : 'Edit'}</button>
        : null}
      {readOnly ? <span className="hint">read-only</span> : (
        <>
          {file && isArchive(f.name) ? <button type="button" disabled={busy} onClick={() => onExtract(f)} aria-label={`Extract ${f.name} here`}>Extract here</button> : null}
          {f.type === 'DIRECTORY' ? <button type="button" disabled={busy} onClick={() => onCompress(f)} aria-label={`Compress ${f.name}`}>Compress</button> : null}
          <button type="button" onClick={() => onMove('rename', f)} aria-label={`Rename ${f.name}`}>Rename</button>
          <button type="button" onClick={() => onMove('move', f)} aria-label={`Move ${f.name}`}>Move</button>
          <button type="button" className="danger-outline" onClick={() => onDelete(f)} aria-label={`Delete ${f.name}`}>Delete</button>
        </>
      )}
    </div>
  );
}
