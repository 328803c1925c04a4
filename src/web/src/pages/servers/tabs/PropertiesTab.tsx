import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { PropertiesChange, ServerDetail } from '../../../api/types';
import { TextField } from '../../../components/Field';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';

/** Keys Cairn sets itself at every start (the API refuses them with managed_property). */
const isManaged = (key: string) =>
  ['server-port', 'server-ip', 'enable-rcon', 'enable-query', 'query.port'].includes(key) || key.startsWith('rcon.');

/** server.properties as a key/value editor; only changed keys are sent, null removes one. */
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
      client.setQueryData(key, { properties: answer.properties });
      setEdits({});
      setSaved(true);
    },
  });
  if (properties.error) return <ProblemAlert error={properties.error} />;
  if (!properties.data) return <Loading what="server.properties" />;
  const current = properties.data.properties;
  const keys = [...new Set([...Object.keys(current), ...Object.keys(edits)])].sort();
  const edit = (k: string, v: string | null) => {
    setSaved(false);
    setEdits((e) => {
      const next = { ...e };
      if (v === current[k] || (v === null && !(k in current))) delete next[k];
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
      <p className="notice">Changes are written to <code>server.properties</code> now and apply at the server's next start. Keys Cairn manages (ports, RCON, query) are locked.</p>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">server.properties</caption>
          <thead><tr><th scope="col">Key</th><th scope="col">Value</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {keys.map((k) => {
              const managed = isManaged(k);
              const value = k in edits ? edits[k] : current[k];
              return (
                <tr key={k}>
                  <th scope="row" className="mono">{k}</th>
                  <td>
                    {value === null ? <span className="hint">removed at save</span> : (
                      <input aria-label={`Value of ${k}`} value={value} readOnly={managed} aria-readonly={managed || undefined}
                        onChange={(e) => edit(k, e.target.value)} title={managed ? 'Managed by Cairn' : undefined} />
                    )}
                  </td>
                  <td>
                    {managed ? <span className="hint">managed by Cairn</span>
                      : value === null ? <button type="button" onClick={() => edit(k, current[k] ?? null)}>Keep</button>
                        : <button type="button" onClick={() => edit(k, null)} aria-label={`Remove ${k}`}>Remove</button>}
                  </td>
                </tr>
              );
            })}
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
