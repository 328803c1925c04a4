import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { isProblem } from '../../../api/problem';
import { directoriesFor, joinPath } from './file-paths';
import { readDrop, type DropContents } from './files/dropped-tree';

export interface UploadProgress {
  /** Files written so far, of `total`. */
  done: number;
  total: number;
  current: string;
  /** Bytes of `current` sent so far, of `size`. */
  sent: number;
  size: number;
  /** Bytes of all the files sent so far, of `totalBytes`. */
  sentBytes: number;
  totalBytes: number;
}

/**
 * Uploads files, or whole folders, into `dir`: the folders are created first, parents before
 * children (an existing one is fine: the write API does not make missing parents), then each file
 * is written, one after the other, with progress to show: files done, bytes of all and bytes of
 * the one under way. A file over 64 MiB goes through a resumable upload session (api/resumable-upload.ts).
 */
export function useUpload(serverId: string, dir: string, onDone: () => void) {
  const [progress, setProgress] = useState<UploadProgress>();
  const upload = useMutation({
    mutationFn: async (contents: DropContents) => {
      const { items, directories } = await readDrop(contents);
      const paths = items.map((item) => item.relativePath);
      // `a/b/` stands for the folder itself, so an empty dropped folder is made too.
      for (const directory of directoriesFor(dir, [...paths, ...directories.map((d) => `${d}/`)])) {
        try {
          await api.files.mkdir(serverId, directory);
        } catch (e) {
          if (!(isProblem(e) && e.code === 'conflict')) throw e;
        }
      }
      const totalBytes = items.reduce((sum, item) => sum + item.file.size, 0);
      let before = 0;
      for (const [i, { file }] of items.entries()) {
        const step = { done: i, total: items.length, current: paths[i], totalBytes };
        setProgress({ ...step, sent: 0, size: file.size, sentBytes: before });
        await api.files.upload(serverId, joinPath(dir, paths[i]), file, (sent, size) => setProgress({ ...step, sent, size, sentBytes: before + sent }));
        before += file.size;
      }
      setProgress({ done: items.length, total: items.length, current: '', sent: 0, size: 0, sentBytes: totalBytes, totalBytes });
    },
    onSettled: () => {
      setProgress(undefined);
      onDone();
    },
  });
  return { upload, progress };
}
