import type { ServerDetail } from './api-types.js';
import type { Plan } from './apply-plan.js';
import type { CliClient } from './client.js';
import { ApiError, CliError } from './errors.js';
import type { DesiredServer } from './manifest.js';
import { upgradeServer } from './upgrade.js';
import { waitFor } from './wait-server.js';

/**
 * A step of an apply failed after earlier ones changed the server: `done` says what did happen
 * (`created`, `resources changed`, …), `failed` what did not, so the report is exact.
 */
export class PartlyApplied extends CliError {
  constructor(readonly done: string[], readonly failed: string, readonly reason: ApiError | CliError) {
    super(`${done.join(', ')}, but ${failed}: ${reason.message}`);
  }
}

/** POST /servers's body for a server the file names and the API does not have yet. */
const createBody = (desired: DesiredServer, teamId: string) => ({
  name: desired.name, teamId, software: desired.software, resources: desired.resources,
  ...(desired.inNetwork === undefined ? {} : { inNetwork: desired.inNetwork }),
  ...(desired.sleep ? { sleep: desired.sleep } : {}),
});

/**
 * A dry run's calls: the create or the change of `plan` with `?dryRun=true`, so the Controller
 * makes every check of the real call (permissions, name, placement and capacity, the server's
 * phase) and refuses as it would, changing nothing. The API has no dry run for a software
 * update, properties, plugins or power: those are checked as far as preparing the plan checks them.
 */
export async function rehearse(client: CliClient, desired: DesiredServer, teamId: string, plan: Plan, currentId: string | undefined): Promise<void> {
  if (!currentId) await client.post('/servers?dryRun=true', createBody(desired, teamId));
  else if (plan.patch) await client.patch(`/servers/${currentId}?dryRun=true`, plan.patch);
}

/**
 * Makes the calls of `plan` (checked beforehand: nothing here is refused by the file itself); a
 * new server is installed (READY) before its properties and plugins are set. A step that fails
 * after an earlier one changed the server throws PartlyApplied; before that, the API's own error.
 */
export async function carryOut(
  client: CliClient, desired: DesiredServer, teamId: string, plan: Plan, currentId: string | undefined, timeoutMs: number, timeout: string,
): Promise<void> {
  const done: string[] = [];
  /** `failed` completes "created, but …" when `call` fails; `finished` is added to what was done when it succeeds. */
  const step = async (failed: string, finished: string | undefined, call: () => Promise<unknown>) => {
    try {
      await call();
    } catch (e) {
      if (done.length === 0 || !(e instanceof ApiError || e instanceof CliError)) throw e;
      throw new PartlyApplied(done, failed, e);
    }
    if (finished) done.push(finished);
  };
  let id = currentId;
  if (!id) {
    await step('creating it failed', 'created', async () => {
      id = (await client.post<ServerDetail>('/servers', createBody(desired, teamId))).id;
    });
    if (plan.properties || plan.install.length > 0) {
      await step('its properties and plugins were not set', undefined, async () => {
        const { met } = await waitFor(client, id!, 'ready', timeoutMs);
        if (!met) throw new CliError(`it was not installed within ${timeout}; apply again to finish`);
      });
    }
  }
  const path = `/servers/${id!}`;
  // First: the server is UPDATING until it ends, and refuses other changes meanwhile.
  if (plan.software) {
    const { version } = plan.software;
    // An older version is refused (downgrade_refused) as the API refuses it: cairn upgrade --allow-downgrade says it is meant.
    await step(`updating the software to ${version} failed`, `software updated to ${version}`,
      () => upgradeServer(client, id!, plan.software!, timeoutMs, (s) => process.stderr.write(`server/${desired.name}: ${s}\n`)));
  }
  if (plan.patch) {
    const what = Object.keys(plan.patch).join(' and ');
    await step(`changing ${what} failed`, `${what} changed`, () => client.patch(path, plan.patch));
  }
  if (plan.properties) await step('setting properties failed', 'properties set', () => client.patch(`${path}/properties`, plan.properties));
  for (const p of plan.install) await step(`installing plugin ${p.pluginId} failed`, `plugin ${p.pluginId} installed`, () => client.post(`${path}/plugins`, p));
  for (const p of plan.update) {
    await step(`updating plugin ${p.pluginId} failed`, `plugin ${p.pluginId} updated`, () => client.post(`${path}/plugins/${p.installationId}/update`, { versionId: p.versionId }));
  }
  if (plan.power) await step(plan.power === 'start' ? 'starting it failed' : 'stopping it failed', undefined, () => client.post(`${path}/${plan.power!}`));
}
