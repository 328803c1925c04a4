import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { FileItem, ServerDetail } from '../../../api/types';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { DataTable, type Column } from '../../../components/DataTable';
import { TextField } from '../../../components/Field';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatBytes, formatTime } from '../../../format/units';
import { SftpAccess } from '../SftpAccess';
import { crumbs, isReadOnly, joinPath, parentOf } from './file-paths';
import { zipNameFor } from './files/archive-names';
import { ArchiveJobStatus } from './files/ArchiveJobStatus';
import { looseFile } from './files/drop-contents';
import { DropZone } from './files/DropZone';
import { FileRowActions } from './files/FileRowActions';
import { MoveDialog, type MoveKind } from './files/MoveDialog';
import { NewFileForm } from './files/NewFileForm';
import { UploadStatus } from './files/UploadStatus';
import { useArchiveJob } from './files/use-archive-job';
import { useOpenFolder } from './files/use-open-folder';
import { useUpload } from './use-upload';

/** CodeMirror is loaded the first time a file is opened. */
const FileEditor = lazy(async () => ({ default: (await import('./FileEditor')).FileEditor }));

/**
 * Browse the server's files (the open folder in the address), upload or drop files and folders,
 * create, edit, rename, move, delete with confirmation, extract and compress archives, download a
 * folder as a zip; where to connect with SFTP above it.
 */
export function FilesTab({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const [dir, openFolder] = useOpenFolder();
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<FileItem>();
  const [moving, setMoving] = useState<{ kind: MoveKind; item: FileItem }>();
  const [folderName, setFolderName] = useState('');
  const listKey = queryKeys.servers.files(server.id, dir);
  const files = useQuery({ queryKey: listKey, queryFn: () => api.files.list(server.id, dir) });
  const refresh = () => void client.invalidateQueries({ queryKey: listKey });
  const { upload, progress } = useUpload(server.id, dir, refresh);
  const archive = useArchiveJob(server.id, () => void client.invalidateQueries({ queryKey: queryKeys.servers.allFiles(server.id) }));
  const mkdir = useMutation({
    mutationFn: (name: string) => api.files.mkdir(server.id, joinPath(dir, name)),
    onSuccess: () => {
      setFolderName('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (item: FileItem) => api.files.delete(server.id, item.path),
    onSuccess: (_, item) => {
      setDeleting(undefined);
      if (editing === item.path) setEditing(undefined);
      refresh();
    },
  });
  const moved = (from: string, to: string) => {
    setMoving(undefined);
    if (editing === from || editing?.startsWith(`${from}/`)) setEditing(undefined);
    // The destination may be another folder: its listing is stale too.
    void client.invalidateQueries({ queryKey: queryKeys.servers.files(server.id, parentOf(to)) });
    refresh();
  };
  const readOnlyDir = isReadOnly(dir);
  const pick = (e: { target: HTMLInputElement }) => {
    const picked = [...(e.target.files ?? [])];
    e.target.value = '';
    if (picked.length > 0) upload.mutate({ folders: [], files: picked.map(looseFile) });
  };
  const createFolder = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (folderName.trim()) mkdir.mutate(folderName.trim());
  };

  const columns: Column<FileItem>[] = [
    {
      header: 'Name', essential: true,
      cell: (f) => f.type === 'DIRECTORY'
        ? <button type="button" className="link" onClick={() => { openFolder(f.path); setEditing(undefined); }}>{f.name}/</button>
        : <span className="mono">{f.name}</span>,
    },
    { header: 'Size', cell: (f) => (f.type === 'DIRECTORY' ? '—' : formatBytes(f.sizeBytes)) },
    { header: 'Modified', cell: (f) => formatTime(f.modifiedAt) },
    {
      header: 'Actions', essential: true,
      cell: (f) => (
        <FileRowActions serverId={server.id} item={f} busy={archive.start.isPending} onEdit={setEditing} onMove={(kind, item) => setMoving({ kind, item })} onDelete={setDeleting}
          onExtract={(item) => archive.start.mutate({ extract: item.path })} onCompress={(item) => archive.start.mutate({ compress: [item.path], into: zipNameFor(item.path) })} />
      ),
    },
  ];

  const listing = (
    <>
      {progress ? <UploadStatus progress={progress} /> : null}
      <ProblemAlert error={upload.error} />
      {archive.job ? <ArchiveJobStatus job={archive.job} onDismiss={archive.dismiss} /> : null}
      <ProblemAlert error={archive.error} />
      <ProblemAlert error={files.error} />
      {files.isPending ? <Loading what="files" /> : (
        <DataTable caption={`Files in ${dir === '.' ? 'the server root' : dir}`} columns={columns} rows={files.data?.items} rowKey={(f) => f.path} empty="This folder is empty." />
      )}
    </>
  );

  return (
    <div>
      {server.sftp ? <SftpAccess sftp={server.sftp} /> : null}
      <nav aria-label="Folder" className="breadcrumbs">
        <button type="button" className="link" onClick={() => openFolder('.')} aria-current={dir === '.' ? 'location' : undefined}>server root</button>
        {crumbs(dir).map(([name, path]) => (
          <span key={path}>/ <button type="button" className="link" onClick={() => openFolder(path)} aria-current={dir === path ? 'location' : undefined}>{name}</button></span>
        ))}
      </nav>
      {readOnlyDir ? <p className="notice">{dir} holds the installed software: it is read-only.</p> : (
        <div className="toolbar">
          <label className="button">Upload files<input type="file" multiple className="visually-hidden" onChange={pick} disabled={upload.isPending} /></label>
          <label className="button">Upload folder<input type="file" className="visually-hidden" onChange={pick} disabled={upload.isPending} {...{ webkitdirectory: '' }} /></label>
          <form onSubmit={createFolder} className="inline-form">
            <TextField label="Folder name" field="path" error={mkdir.error} value={folderName} onChange={(e) => setFolderName(e.target.value)} />
            <button type="submit" disabled={mkdir.isPending || !folderName.trim()}>Create folder</button>
          </form>
          <NewFileForm serverId={server.id} dir={dir} entries={files.data?.items} onCreated={(path) => { refresh(); setEditing(path); }} />
        </div>
      )}
      {readOnlyDir ? listing : <DropZone dir={dir} onDrop={(contents) => upload.mutate(contents)}>{listing}</DropZone>}
      {editing ? (
        <Suspense fallback={<Loading what="the editor" />}>
          <FileEditor key={editing} serverId={server.id} path={editing} onClose={() => setEditing(undefined)} />
        </Suspense>
      ) : null}
      {moving ? <MoveDialog key={`${moving.kind}:${moving.item.path}`} serverId={server.id} kind={moving.kind} item={moving.item} onMoved={moved} onCancel={() => setMoving(undefined)} /> : null}
      <ConfirmDialog open={deleting !== undefined} title={`Delete ${deleting?.name ?? ''}?`} confirmLabel="Delete"
        onConfirm={() => deleting && remove.mutate(deleting)} onCancel={() => { setDeleting(undefined); remove.reset(); }} pending={remove.isPending} error={remove.error}>
        <p>{deleting?.type === 'DIRECTORY' ? 'The folder and everything in it will be deleted.' : 'The file will be deleted.'} This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
