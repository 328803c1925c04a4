import { useState } from 'react';
import { modpackTemplate, useTemplateVersions } from '../../../api/reference-data';
import type { ServerDetail } from '../../../api/types';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { workflowText } from '../../backups/backup-format';
import { SyncVersions } from './SyncVersions';
import { UpdateSoftwareForm } from './UpdateSoftwareForm';
import { isLoaderTemplate, loaderText } from './loaders';
import { newerSoftware, updateOutcome, type UpdateStarted } from './software-format';

/** The end of an update this page started: `Updated to …` or why it was rolled back. */
function UpdateResult({ server, started }: { server: ServerDetail; started: UpdateStarted }) {
  const outcome = updateOutcome(server, started);
  if (!outcome) return null;
  return outcome.ok ? <p role="status" className="state good">{outcome.text}</p> : <p role="alert" className="problem">{outcome.text}</p>;
}

/**
 * What the server runs beyond template and version: a mod loader template's loader version
 * (`Loader: Fabric 0.16.10`), a modpack's pack, pack version, game version and loader, else the build.
 */
function SoftwareFacts({ server }: { server: ServerDetail }) {
  const { software, modpack } = server;
  if (modpack) {
    return (
      <>
        <dt>Modpack</dt><dd>{modpack.title ? `${modpack.title} (${modpack.project})` : modpack.project}</dd>
        <dt>Pack version</dt><dd>{modpack.versionName}</dd>
        <dt>Game version</dt><dd>{modpack.game}</dd>
        <dt>Loader</dt><dd>{loaderText(modpack.loader)}</dd>
      </>
    );
  }
  if (isLoaderTemplate(software.template) && software.build) {
    return <><dt>Loader</dt><dd>{loaderText({ template: software.template, build: software.build })}</dd></>;
  }
  return <><dt>Build</dt><dd>{software.build ?? '—'}</dd></>;
}

/** A modpack server's versions are its project's: the slug before the colon of `software.version`. */
const projectOf = (server: ServerDetail) =>
  server.software.template === modpackTemplate ? server.modpack?.project ?? server.software.version.split(':')[0] : undefined;

/**
 * The server's software (template, version, build or loader, modpack), whether its template offers something newer,
 * and the Update form. While the UPDATE workflow runs its step is shown; the page keeps the detail
 * live (watch stream, and a poll while a workflow runs), so this only reads `server`.
 */
export function SoftwareCard({ server }: { server: ServerDetail }) {
  const versions = useTemplateVersions(server.software.template, projectOf(server));
  const [started, setStarted] = useState<UpdateStarted>();
  const newer = versions.data ? newerSoftware(versions.data, server.software) : undefined;
  const updating = server.phase === 'UPDATING' && server.workflow?.kind === 'UPDATE';
  return (
    <section className="card" aria-labelledby="software-heading">
      <h2 id="software-heading">Software</h2>
      <dl className="facts">
        <dt>Template</dt><dd>{server.software.template}</dd>
        <dt>Version</dt><dd>{server.software.version}</dd>
        <SoftwareFacts server={server} />
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
