import { useState } from 'react';
import { useTemplateVersions } from '../../../api/reference-data';
import type { ServerDetail } from '../../../api/types';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { workflowText } from '../../backups/backup-format';
import { SyncVersions } from './SyncVersions';
import { UpdateSoftwareForm } from './UpdateSoftwareForm';
import { newerSoftware, updateOutcome, type UpdateStarted } from './software-format';

/** The end of an update this page started: `Updated to …` or why it was rolled back. */
function UpdateResult({ server, started }: { server: ServerDetail; started: UpdateStarted }) {
  const outcome = updateOutcome(server, started);
  if (!outcome) return null;
  return outcome.ok ? <p role="status" className="state good">{outcome.text}</p> : <p role="alert" className="problem">{outcome.text}</p>;
}

/**
 * The server's software (template, version, build), whether its template offers something newer,
 * and the Update form. While the UPDATE workflow runs its step is shown; the page keeps the detail
 * live (watch stream, and a poll while a workflow runs), so this only reads `server`.
 */
export function SoftwareCard({ server }: { server: ServerDetail }) {
  const versions = useTemplateVersions(server.software.template);
  const [started, setStarted] = useState<UpdateStarted>();
  const newer = versions.data ? newerSoftware(versions.data, server.software) : undefined;
  const updating = server.phase === 'UPDATING' && server.workflow?.kind === 'UPDATE';
  return (
    <section className="card" aria-labelledby="software-heading">
      <h2 id="software-heading">Software</h2>
      <dl className="facts">
        <dt>Template</dt><dd>{server.software.template}</dd>
        <dt>Version</dt><dd>{server.software.version}</dd>
        <dt>Build</dt><dd>{server.software.build ?? '—'}</dd>
      </dl>
      {newer ? <p className="hint" role="note">{newer}</p> : null}
      {updating && server.workflow ? (
        <p role="status"><progress aria-label="Update in progress" /> {workflowText(server.workflow)}</p>
      ) : null}
      {started ? <UpdateResult server={server} started={started} /> : null}
      <ProblemAlert error={versions.error} />
      <UpdateSoftwareForm server={server} versions={versions.data ?? []} onStarted={setStarted} />
      <SyncVersions />
    </section>
  );
}
