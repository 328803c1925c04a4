import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { PropertiesChange, PropertiesView, ServerDetail } from '../../../api/types';
import { TextField } from '../../../components/Field';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { propertyDefaults } from './property-defaults';
import { PropertyRow } from './PropertyRow';

/**
 * server.properties as a key/value editor, with the game's defaults for common keys the file
 * lacks; only changed keys are sent, null removes one. Keys Cairn manages are locked, with why.
 */
export function PropertiesTab({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const key = queryKeys.servers.properties(server.id);
  const properties = useQuery({ queryKey: key, queryFn: () => api.properties.get(server.id) });
  const [edits, setEdits] = useState<PropertiesChange>({});
  const [newKey, setNewKey] = useState('');
  const [newValue, setNewValue] = useState('');
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (change: PropertiesChange) => api.properties.patch(server.id, change),
    onSuccess: (answer) => {
      // The saved keys change which are in the file, so which managed keys the view lists: read it again.
      client.setQueryData(key, (view?: PropertiesView) => ({ managed: view?.managed ?? {}, known: view?.known ?? {}, properties: answer.properties }));
      void client.invalidateQueries({ queryKey: key });
      setEdits({});
      setSaved(true);
    },
  });
  if (properties.error) return <ProblemAlert error={properties.error} />;
  if (!properties.data) return <Loading what="server.properties" />;
  const { properties: current, managed, known } = properties.data;
  const keys = [...new Set([...Object.keys(current), ...Object.keys(propertyDefaults), ...Object.keys(managed), ...Object.keys(edits)])].sort();
  const edit = (k: string, v: string | null) => {
    setSaved(false);
    setEdits((e) => {
      const next = { ...e };
      // Back to what the file says (or, for a key it lacks, to the game's default): nothing to send.
      if (v === (current[k] ?? propertyDefaults[k]) || (v === null && !(k in current))) delete next[k];
      else next[k] = v;
      return next;
    });
  };
  const add = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!newKey.trim()) return;
    edit(newKey.trim(), newValue);
    setNewKey('');
    setNewValue('');
  };
  const changed = Object.keys(edits).length;
  return (
    <div>
      <p className="notice">Changes are written to <code>server.properties</code> now and apply at the server's next start. Keys the file lacks show the game's default; keys Cairn manages are locked.</p>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">server.properties</caption>
          <thead><tr><th scope="col">Key</th><th scope="col">Value</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {keys.map((k) => (
              <PropertyRow key={k} name={k} value={k in edits ? edits[k] : k in current ? current[k] : k in propertyDefaults ? propertyDefaults[k] : ''}
                isDefault={!(k in current) && !(k in edits)} lockedBecause={managed[k]} kind={Object.hasOwn(known, k) ? known[k] : undefined} inFile={k in current}
                onEdit={(v) => edit(k, v)} onKeep={() => edit(k, current[k] ?? null)} />
            ))}
          </tbody>
        </table>
      </div>
      <form onSubmit={add} className="toolbar">
        <TextField label="New key" value={newKey} onChange={(e) => setNewKey(e.target.value)} spellCheck={false} />
        <TextField label="New value" value={newValue} onChange={(e) => setNewValue(e.target.value)} spellCheck={false} />
        <button type="submit" disabled={!newKey.trim()}>Add property</button>
      </form>
      <ProblemAlert error={save.error} />
      <div className="actions">
        <button type="button" className="primary" disabled={changed === 0 || save.isPending} onClick={() => save.mutate(edits)}>
          {save.isPending ? 'Saving…' : `Save properties${changed ? ` (${changed} changed)` : ''}`}
        </button>
        {changed ? <button type="button" onClick={() => setEdits({})}>Discard changes</button> : null}
        {saved ? <span role="status" className="success">Saved; applies at the next start.</span> : null}
      </div>
    </div>
  );
}
