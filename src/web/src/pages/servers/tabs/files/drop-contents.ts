import type { DropContents, DroppedEntry, UploadItem } from './dropped-tree';

/** A file on its own; one from a folder picked by an input keeps its place in `webkitRelativePath`. */
export const looseFile = (file: File): UploadItem => ({ file, relativePath: file.webkitRelativePath || file.name });

/**
 * What a drop carried, taken while the event lasts: a DataTransfer's items are emptied once the
 * handler returns. Only folders are taken as entries (to walk later); a file is taken as the File
 * itself, which works alike for one dropped from the desktop and one made in the page.
 */
export function contentsOf(data: DataTransfer): DropContents {
  const folders: DroppedEntry[] = [];
  const files: UploadItem[] = [];
  for (const item of Array.from(data.items)) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry() as DroppedEntry | null;
    const file = entry?.isDirectory ? null : item.getAsFile();
    if (entry?.isDirectory) folders.push(entry);
    else if (file) files.push(looseFile(file));
  }
  return { folders, files };
}
