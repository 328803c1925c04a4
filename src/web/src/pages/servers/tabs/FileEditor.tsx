import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { basicSetup, EditorView } from 'codemirror';
import { EditorState } from '@codemirror/state';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { isReadOnly, parentOf } from './file-paths';

interface FileEditorProps {
  serverId: string;
  path: string;
  onClose: () => void;
}

/** A text file in CodeMirror 6; Save writes it back with PUT. Files under `.cairn` open read-only. */
export function FileEditor({ serverId, path, onClose }: FileEditorProps) {
  const client = useQueryClient();
  const host = useRef<HTMLDivElement>(null);
  const section = useRef<HTMLElement>(null);
  const view = useRef<EditorView | null>(null);
  const [saved, setSaved] = useState(false);
  const readOnly = isReadOnly(path);
  const content = useQuery({
    queryKey: queryKeys.servers.file(serverId, path), staleTime: 0, gcTime: 0,
    // An empty file answers with no body, which the client reads as undefined: it is the empty text.
    queryFn: async () => (await api.files.read(serverId, path) as string | undefined) ?? '',
  });
  const save = useMutation({
    mutationFn: (text: string) => api.files.write(serverId, path, new Blob([text], { type: 'application/octet-stream' })),
    onSuccess: () => {
      setSaved(true);
      void client.invalidateQueries({ queryKey: queryKeys.servers.files(serverId, parentOf(path)) });
    },
  });

  const text = content.data;
  useEffect(() => {
    if (text === undefined || !host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text,
        extensions: [
          basicSetup,
          EditorState.readOnly.of(readOnly),
          EditorView.contentAttributes.of({ 'aria-label': `Contents of ${path}` }),
          EditorView.updateListener.of((u) => u.docChanged && setSaved(false)),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, [text, path, readOnly]);

  // The editor opens below the file list: bring it into view once it has its text, or the click seems to do nothing.
  const loaded = text !== undefined;
  useEffect(() => {
    if (loaded) section.current?.scrollIntoView({ block: 'start' });
  }, [loaded, path]);

  return (
    <section ref={section} aria-labelledby="editor-heading" className="file-editor">
      <h2 id="editor-heading">{readOnly ? 'Viewing' : 'Editing'} {path}</h2>
      <ProblemAlert error={content.error} />
      {content.isPending ? <Loading what={path} /> : <div ref={host} className="editor" />}
      <ProblemAlert error={save.error} />
      <div className="actions">
        {readOnly ? null : (
          <button type="button" className="primary" disabled={save.isPending || text === undefined} onClick={() => view.current && save.mutate(view.current.state.doc.toString())}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
        )}
        <button type="button" onClick={onClose}>Close</button>
        {saved ? <span role="status" className="success">Saved.</span> : null}
      </div>
    </section>
  );
}
