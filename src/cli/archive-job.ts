import { setTimeout as delay } from 'node:timers/promises';
import type { ArchiveJob } from './api-types.js';
import type { CliClient } from './client.js';
import { CliError } from './errors.js';

/** How often a running job is asked about: archives of a few files end in well under a second. */
const pollMs = 250;

/**
 * Asks GET files/jobs/{jobId} until the job is no longer RUNNING. Past `timeoutMs` the command
 * gives up (exit 1) but the job goes on in the Controller, and the message says where to look.
 */
export async function waitForJob(client: CliClient, serverId: string, job: ArchiveJob, timeoutMs: number): Promise<ArchiveJob> {
  const deadline = Date.now() + timeoutMs;
  let now = job;
  while (now.state === 'RUNNING') {
    if (Date.now() >= deadline) {
      throw new CliError(`the ${now.kind.toLowerCase()} job ${now.id} is still RUNNING (${now.bytes ?? 0} bytes so far) at the timeout; it goes on: GET /servers/${serverId}/files/jobs/${now.id}`);
    }
    await delay(pollMs);
    now = await client.get<ArchiveJob>(`/servers/${serverId}/files/jobs/${job.id}`);
  }
  return now;
}
