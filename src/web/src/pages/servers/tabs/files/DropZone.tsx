import { useState, type DragEvent, type ReactNode } from 'react';
import { contentsOf } from './drop-contents';
import type { DropContents } from './dropped-tree';

/** Only a drag carrying files is taken; a dragged link or text is left to the browser. */
const carriesFiles = (e: DragEvent) => Array.from(e.dataTransfer.types).includes('Files');

/**
 * The part of the Files tab that takes files and folders dragged in from the desktop: they go into
 * the open folder, as the Upload buttons' do. Outlined while a drag is over it.
 */
export function DropZone({ dir, onDrop, children }: { dir: string; onDrop: (contents: DropContents) => void; children: ReactNode }) {
  const [over, setOver] = useState(false);
  const enter = (e: DragEvent<HTMLDivElement>) => {
    if (!carriesFiles(e)) return;
    // Without this the browser opens the dropped file in place of the page.
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setOver(true);
  };
  const leave = (e: DragEvent<HTMLDivElement>) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
  };
  const drop = (e: DragEvent<HTMLDivElement>) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    setOver(false);
    onDrop(contentsOf(e.dataTransfer));
  };
  return (
    <div role="region" aria-label="Drop files here" className={over ? 'drop-zone over' : 'drop-zone'} onDragEnter={enter} onDragOver={enter} onDragLeave={leave} onDrop={drop}>
      <p className="hint">Drag files, folders or an archive here to upload them into {dir === '.' ? 'the server root' : dir}.</p>
      {children}
    </div>
  );
}
