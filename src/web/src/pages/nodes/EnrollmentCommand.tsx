import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { AgentLink, EnrollmentIssued } from '../../api/types';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { CopyField } from '../../components/CopyField';
import { ShownOnce } from '../../components/ShownOnce';
import { AgentReach } from './AgentReach';

const defaultDataDir = '/var/lib/cairn-agent';

/** HOST:PORT for `--controller`; without a host the link listens everywhere, so the host this page came from is the best guess. */
function controllerAddress(link: AgentLink): string {
  const host = link.host ?? window.location.hostname;
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${link.port}`;
}

/** The whole `cairn-agent` line for a new or re-enrolled Node; arguments with spaces are quoted for a POSIX shell. */
function agentCommand(link: AgentLink, dataDir: string, token: string): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
  const args = ['cairn-agent', '--controller', controllerAddress(link), '--data-dir', quote(dataDir || defaultDataDir), '--enrollment-token', token];
  if (link.tls) args.push('--controller-ca', 'ca.pem');
  return args.join(' ');
}

/** The one-time enrollment token of a Node and the command that enrolls its Agent, shown once. */
export function EnrollmentCommand({ issued, onDone }: { issued: EnrollmentIssued; onDone: () => void }) {
  const link = useQuery({ queryKey: queryKeys.agentLink, queryFn: api.agentLink.get, staleTime: Infinity });
  const [dataDir, setDataDir] = useState(defaultDataDir);
  return (
    <ShownOnce title={`Enroll the Agent of ${issued.node.name}`} onDone={onDone}>
      <p>Run this on the Node's host. The token works once, until {formatTime(issued.enrollmentExpiresAt)}; the Agent then keeps its own credential in its data directory.</p>
      <TextField label="Agent data directory" value={dataDir} onChange={(e) => setDataDir(e.target.value)} spellCheck={false} autoComplete="off" />
      <ProblemAlert error={link.error} />
      {link.data ? <CopyField label="Agent command" value={agentCommand(link.data, dataDir, issued.enrollmentToken)} /> : null}
      {link.data ? <AgentReach link={link.data} /> : null}
      {link.data?.tls ? <p className="hint"><code>ca.pem</code> stands for the certificate the Controller's <code>--tls-cert</code> is signed with.</p> : null}
      <CopyField label="Enrollment token" value={issued.enrollmentToken} />
    </ShownOnce>
  );
}
