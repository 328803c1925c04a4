/**
 * What a drop onto the Files tab holds, read into files with their place in the dropped folders.
 * The entry shapes are the few members of the browser's FileSystemEntry API this reads, so the walk
 * can be tested outside a browser.
 */
export interface DroppedEntry {
  isDirectory: boolean;
  /** `/world/region/r.0.0.mca`: from the drop's root. */
  fullPath: string;
  file?: (ok: (file: File) => void, fail: (error: unknown) => void) => void;
  createReader?: () => { readEntries: (ok: (entries: DroppedEntry[]) => void, fail: (error: unknown) => void) => void };
}

/** A file to upload and its path under the folder it was dropped into. */
export interface UploadItem { file: File; relativePath: string }

/** What a drop or a pick carried: folders to walk, and files on their own with their path already known. */
export interface DropContents { folders: DroppedEntry[]; files: UploadItem[] }

/** The files of a drop, and its folders (empty ones too), both relative to the folder dropped into. */
export interface DroppedTree { items: UploadItem[]; directories: string[] }

const relative = (fullPath: string) => fullPath.replace(/^\/+/, '');

/** readEntries answers a batch at a time (100 in Chromium) and an empty one at the end. */
async function childrenOf(folder: DroppedEntry): Promise<DroppedEntry[]> {
  const reader = folder.createReader!();
  const all: DroppedEntry[] = [];
  for (;;) {
    const batch = await new Promise<DroppedEntry[]>((ok, fail) => reader.readEntries(ok, fail));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walk(entry: DroppedEntry, tree: DroppedTree): Promise<void> {
  if (entry.isDirectory) {
    tree.directories.push(relative(entry.fullPath));
    for (const child of await childrenOf(entry)) await walk(child, tree);
    return;
  }
  const file = await new Promise<File>((ok, fail) => entry.file!(ok, fail));
  tree.items.push({ file, relativePath: relative(entry.fullPath) });
}

/** Every file and folder of a drop, parents before what they hold. */
export async function readDrop({ folders, files }: DropContents): Promise<DroppedTree> {
  const tree: DroppedTree = { items: [...files], directories: [] };
  for (const folder of folders) await walk(folder, tree);
  return tree;
}
