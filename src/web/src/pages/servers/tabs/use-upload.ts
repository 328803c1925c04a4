import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { isProblem } from '../../../api/problem';
import { directoriesFor, joinPath } from './file-paths';

export interface UploadProgress {
  /** Files written so far, of `total`. */
  done: number;
  total: number;
  current: string;
  /** Bytes of `current` sent so far, of `size`. */
  sent: number;
  size: number;
}

/** A file picked alone, or within a folder (`webkitRelativePath` keeps its place in the folder). */
const relativePath = (file: File) => file.webkitRelativePath || file.name;

/**
 * Uploads files, or a whole folder, into `dir`: the folder's directories are created first
 * (an existing one is fine), then each file is written with PUT, one after the other, with
 * progress to show: files done, and bytes of the one under way.
 */
export function useUpload(serverId: string, dir: string, onDone: () => void) {
  const [progress, setProgress] = useState<UploadProgress>();
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      const paths = files.map(relativePath);
      for (const directory of directoriesFor(dir, paths)) {
        try {
          await api.files.mkdir(serverId, directory);
        } catch (e) {
          if (!(isProblem(e) && e.code === 'conflict')) throw e;
        }
      }
      for (const [i, file] of files.entries()) {
        const step = { done: i, total: files.length, current: paths[i] };
        setProgress({ ...step, sent: 0, size: file.size });
        await api.files.upload(serverId, joinPath(dir, paths[i]), file, (sent, size) => setProgress({ ...step, sent, size }));
      }
      setProgress({ done: files.length, total: files.length, current: '', sent: 0, size: 0 });
    },
    onSettled: () => {
      setProgress(undefined);
      onDone();
    },
  });
  return { upload, progress };
}
