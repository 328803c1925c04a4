import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { DrainStarted, EnrollmentIssued, Node } from '../../api/types';
import { TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatBytes, formatCores, formatTime } from '../../format/units';
import { CapacityMeter } from '../../components/CapacityMeter';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormDialog } from '../../components/FormDialog';
import { FormProblem } from '../../components/FormProblem';
import { DrainButton, DrainProgress } from './DrainNode';
import { adminStateClass, connectionStateClass, formatIsolation, javasOf } from './node-format';

interface NodeDetailProps {
  nodeId: string;
  /** The caller may change Nodes (a convenience: the API decides). */
  manage: boolean;
  onEnrollment: (issued: EnrollmentIssued) => void;
  onClose: () => void;
}

/** One Node: its facts, capacity and conditions, and what an administrator does with it. */
export function NodeDetail({ nodeId, manage, onEnrollment, onClose }: NodeDetailProps) {
  const client = useQueryClient();
  const node = useQuery({ queryKey: queryKeys.nodes.detail(nodeId), queryFn: () => api.nodes.get(nodeId), refetchInterval: 5_000 });
  const heading = useRef<HTMLHeadingElement>(null);
  const [drained, setDrained] = useState<DrainStarted>();
  const loaded = node.data !== undefined;
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [nodeId, loaded]);

  const changed = async (updated?: Node) => {
    if (updated) client.setQueryData(queryKeys.nodes.detail(nodeId), updated);
    await client.invalidateQueries({ queryKey: queryKeys.nodes.all });
  };
  const admin = useMutation({ mutationFn: (verb: 'enable' | 'disable') => api.nodes.setAdminState(nodeId, verb), onSuccess: changed });
  const token = useMutation({
    mutationFn: () => api.nodes.issueEnrollmentToken(nodeId),
    onSuccess: (issued) => onEnrollment(issued),
  });

  if (!node.data) return <section className="card detail">{node.error ? <ProblemAlert error={node.error} /> : <Loading what="the Node" />}</section>;
  const n = node.data;
  const revoked = n.adminState === 'REVOKED';
  return (
    <section className="card detail" aria-labelledby="node-detail-heading">
      <div className="detail-head">
        <h2 id="node-detail-heading" ref={heading} tabIndex={-1}>{n.name}</h2>
        <button type="button" onClick={onClose}>Close<span className="visually-hidden"> {n.name}</span></button>
      </div>
      <dl className="facts">
        <dt>Admin state</dt><dd><span className={adminStateClass(n.adminState)}>{n.adminState}</span></dd>
        <dt>Connection</dt><dd><span className={connectionStateClass(n.status.connectionState)}>{n.status.connectionState}</span></dd>
        <dt>Placements</dt><dd>{n.acceptsPlacements ? 'Accepts new servers' : 'Takes no new servers'}</dd>
        <dt>Address</dt><dd>{n.address ? <code>{n.address}</code> : 'Not set: the observed address is used'}</dd>
        <dt>Reach address</dt><dd>{n.reachAddress ? <code>{n.reachAddress}</code> : 'Unknown yet'}</dd>
        <dt>Observed address</dt><dd>{n.status.observedAddress ? <code>{n.status.observedAddress}</code> : '—'}</dd>
        <dt>Host</dt><dd>{n.status.hostname ? `${n.status.hostname} (${n.status.os} ${n.status.arch})` : '—'}</dd>
        <dt>Agent</dt><dd>{n.status.agentVersion ? `${n.status.agentVersion}, ${n.status.runtimeName} ${n.status.runtimeVersion}` : '—'}</dd>
        <dt>Isolation</dt><dd>{formatIsolation(n.status.isolation)}</dd>
        <dt>Java</dt><dd><Javas runtimes={n.status.runtimes} /></dd>
        <dt>Last heartbeat</dt><dd>{formatTime(n.status.lastHeartbeatAt)}</dd>
        <dt>Created</dt><dd>{formatTime(n.createdAt)}</dd>
        <dt>ID</dt><dd><code>{n.id}</code></dd>
      </dl>
      <h3>Capacity</h3>
      <CapacityMeter label="CPU" reserved={n.reserved.cpuMillis} total={n.status.allocatable.cpuMillis} format={formatCores} />
      <CapacityMeter label="Memory" reserved={n.reserved.memoryBytes} total={n.status.allocatable.memoryBytes} format={formatBytes} />
      <p className="hint">
        In use now: {formatCores(n.status.usage.cpuMillis)}, {formatBytes(n.status.usage.memoryBytes)} memory,
        {' '}{formatBytes(n.status.usage.diskBytes)} of {formatBytes(n.status.allocatable.diskBytes)} disk.
      </p>
      <h3>Conditions</h3>
      {n.conditions.length === 0 ? <p>None.</p> : (
        <ul className="conditions">
          {n.conditions.map((c) => (
            <li key={c.id}><span className="state busy">{c.reason}</span> {c.message} <span className="hint">({c.source}, since {formatTime(c.since)})</span></li>
          ))}
        </ul>
      )}
      {manage ? (
        <>
          <h3>Manage</h3>
          <ProblemAlert error={admin.error ?? token.error} />
          <div className="actions">
            {n.adminState === 'ENABLED' ? <button type="button" onClick={() => admin.mutate('disable')} disabled={admin.isPending}>Disable</button> : null}
            {n.adminState === 'DISABLED' ? <button type="button" onClick={() => admin.mutate('enable')} disabled={admin.isPending}>Enable</button> : null}
            <EditAddress node={n} onSaved={changed} />
            {revoked ? null : <button type="button" onClick={() => token.mutate()} disabled={token.isPending}>New enrollment token</button>}
            {revoked ? null : <DrainButton node={n} onDrained={(started) => { setDrained(started); void changed(started.node); }} />}
            {revoked ? null : (
              <ConfirmButton
                title={`Revoke ${n.name}?`} confirmLabel="Revoke" action={() => api.nodes.setAdminState(nodeId, 'revoke')} onDone={() => void changed()}
                description="Revoking is final: the Agent's credential stops working at once and its connection is closed."
              >Revoke</ConfirmButton>
            )}
            <ConfirmButton
              title={`Delete ${n.name}?`} confirmLabel="Delete" action={() => api.nodes.delete(nodeId)}
              onDone={() => { onClose(); void client.invalidateQueries({ queryKey: queryKeys.nodes.all }); }}
              description="The Node's record goes and its Agent is disconnected. A Node with servers placed on it cannot be deleted."
            >Delete<span className="visually-hidden"> {n.name}</span></ConfirmButton>
          </div>
          {drained ? <DrainProgress node={n} drain={drained} /> : null}
          <p className="hint">
            Disable stops new placements; servers already on the Node keep running. Drain disables it and migrates its servers to other Nodes.
            A new enrollment token re-enrolls a reinstalled host.
          </p>
        </>
      ) : null}
    </section>
  );
}

/** Each Java the Agent found, with the path it runs from (the runtime a server needing Java N gets here). */
function Javas({ runtimes }: { runtimes: Node['status']['runtimes'] }) {
  const javas = javasOf(runtimes);
  if (typeof javas === 'string') return <>{javas}</>;
  return (
    <ul className="plain-list">
      {javas.map((j) => <li key={j.path}>Java {j.major} ({j.version}) <code>{j.path}</code></li>)}
    </ul>
  );
}

/** PATCH /nodes/{id}: where other Nodes reach this one; empty means the observed address. */
function EditAddress({ node, onSaved }: { node: Node; onSaved: (updated: Node) => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [address, setAddress] = useState('');
  const save = useMutation({
    mutationFn: () => api.nodes.update(node.id, { address: address.trim() }),
    onSuccess: async (updated) => {
      setOpen(false);
      await onSaved(updated);
    },
  });
  const start = () => {
    save.reset();
    setAddress(node.address ?? '');
    setOpen(true);
  };
  return (
    <>
      <button type="button" onClick={start}>Edit address</button>
      <FormDialog open={open} title={`Address of ${node.name}`} submitLabel="Save address" onSubmit={() => save.mutate()} onClose={() => setOpen(false)} pending={save.isPending}>
        <TextField label="Address" field="address" error={save.error} value={address} onChange={(e) => setAddress(e.target.value)} autoComplete="off" spellCheck={false} hint="Host name or IP address, without a port. Empty: use the address the Agent connects from. The proxy's routes follow at once." />
        <FormProblem error={save.error} fields={['address']} />
      </FormDialog>
    </>
  );
}
