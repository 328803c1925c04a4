import type { ServerDetail, UpdateSoftware } from './api-types.js';
import type { CliClient } from './client.js';
import { CliError } from './errors.js';

/** What `cairn upgrade` and `cairn apply` send: the CLI names no backup destination. */
export type UpgradeRequest = Omit<UpdateSoftware, 'backupDestinationId'>;

/** How often the server is read while it updates: the watch stream's list items carry no workflow step to show. */
const pollMs = 500;

/**
 * POST /servers/{id}/software, then follows the workflow until it ends, telling `progress` each
 * new step. Answers the server READY on the new software; an update that rolled back is an error
 * carrying its UPDATE_FAILED message (only a condition raised since this update began counts).
 */
export async function upgradeServer(client: CliClient, id: string, request: UpgradeRequest, timeoutMs: number, progress: (step: string) => void): Promise<ServerDetail> {
  const begun = await client.post<ServerDetail>(`/servers/${id}/software`, request);
  const startedAt = begun.workflow?.startedAt ?? new Date().toISOString();
  const deadline = Date.now() + timeoutMs;
  let step: string | undefined;
  let server = begun;
  while (server.phase === 'UPDATING') {
    if (server.workflow && server.workflow.step !== step) {
      step = server.workflow.step;
      progress(step);
    }
    if (Date.now() > deadline) throw new CliError(`server/${server.name} is still updating (${step ?? 'starting'}); follow it with cairn describe server ${server.name}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    server = await client.get<ServerDetail>(`/servers/${id}`);
  }
  const failed = server.conditions.find((c) => c.reason === 'UPDATE_FAILED' && c.since >= startedAt);
  if (failed) throw new CliError(`server/${server.name}: ${failed.message}`);
  if (server.phase !== 'READY') throw new CliError(`server/${server.name} is ${server.phase} after the update`);
  return server;
}
