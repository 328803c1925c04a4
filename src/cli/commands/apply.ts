import { readFile } from 'node:fs/promises';
import { text as readAll } from 'node:stream/consumers';
import type { Command } from 'commander';
import type { CatalogPluginDetail, PluginInstallation, PropertiesView, ServerDetail, ServerItem } from '../api-types.js';
import { diffLines, planServer, type Current, type Plan } from '../apply-plan.js';
import type { CliClient } from '../client.js';
import { connect, print, withGlobals } from '../context.js';
import { parseDuration } from '../duration.js';
import { ApiError, CliError } from '../errors.js';
import { parseManifest, type DesiredServer } from '../manifest.js';
import { document, type Format } from '../output.js';
import { ambiguity, kinds, resolve } from '../resolve.js';
import { upgradeServer } from '../upgrade.js';
import { waitFor } from './wait.js';

async function currentOf(client: CliClient, desired: DesiredServer, teamId: string): Promise<Current | undefined> {
  const named = (await client.all<ServerItem>('/servers', { teamId })).filter((s) => s.name === desired.name);
  if (named.length > 1) throw ambiguity(kinds.server, desired.name, named.map((s) => s.id));
  if (named.length === 0) return undefined;
  const server = named[0];
  const current: Current = { server };
  if (desired.properties) current.properties = (await client.get<PropertiesView>(`/servers/${server.id}/properties`)).properties;
  if (desired.plugins) current.plugins = await client.all<PluginInstallation>(`/servers/${server.id}/plugins`);
  return current;
}

/** A plugin version as the file names it (a version or a catalog version id) to its catalog version id. */
async function versionId(client: CliClient, pluginId: string, version: string): Promise<string> {
  const plugin = await client.get<CatalogPluginDetail>(`/catalog/plugins/${encodeURIComponent(pluginId)}`);
  const found = plugin.versions.find((v) => v.versionId === version) ?? plugin.versions.find((v) => v.version === version);
  if (!found) throw new CliError(`plugin ${pluginId} has no version "${version}" in the catalog`);
  return found.versionId;
}

/** Makes the calls of `plan`; a new server is installed (READY) before its properties and plugins are set. */
async function carryOut(client: CliClient, desired: DesiredServer, teamId: string, plan: Plan, current: Current | undefined, timeoutMs: number): Promise<void> {
  let id = current?.server.id;
  if (!id) {
    id = (await client.post<ServerDetail>('/servers', {
      name: desired.name, teamId, software: desired.software, resources: desired.resources, ...(desired.inNetwork === undefined ? {} : { inNetwork: desired.inNetwork }),
    })).id;
    if (plan.properties || plan.install.length > 0) {
      const { met } = await waitFor(client, id, 'ready', timeoutMs);
      if (!met) throw new CliError(`server/${desired.name} was created but not installed within the timeout; apply again to finish`);
    }
  }
  // First: the server is UPDATING until it ends, and refuses other changes meanwhile.
  if (plan.software) {
    // An older version is refused (downgrade_refused) as the API refuses it: cairn upgrade --allow-downgrade says it is meant.
    await upgradeServer(client, id, plan.software, timeoutMs, (step) => process.stderr.write(`server/${desired.name}: ${step}\n`));
  }
  if (plan.patch) await client.patch(`/servers/${id}`, plan.patch);
  if (plan.properties) await client.patch(`/servers/${id}/properties`, plan.properties);
  for (const p of plan.install) {
    await client.post(`/servers/${id}/plugins`, { pluginId: p.pluginId, ...(p.version ? { versionId: await versionId(client, p.pluginId, p.version) } : {}) });
  }
  for (const p of plan.update) await client.post(`/servers/${id}/plugins/${p.installationId}/update`, { versionId: await versionId(client, p.pluginId, p.version) });
  if (plan.power) await client.post(`/servers/${id}/${plan.power}`);
}

interface Outcome {
  kind: 'Server';
  name: string;
  team: string;
  result: Plan['action'];
  changes: Plan['changes'];
}

function report(outcome: Outcome, dryRun: boolean, format: Format): void {
  if (format === 'name') return print(`server/${outcome.name}\n`);
  if (format === 'json' || format === 'yaml') return;
  print(`server/${outcome.name} ${outcome.result}${dryRun ? ' (dry run)' : ''}\n`);
  if (dryRun) print(diffLines(outcome.changes).map((l) => `${l}\n`).join(''));
}

const applyHelp = `
The file holds servers (a list, {items: [...]}, or YAML documents), matched by name and team:
  - kind: Server
    name: lobby
    team: Survival
    software: {template: paper, version: "1.21.4"}   # another version runs the update workflow
    resources: {cpu: 500m, memory: 2Gi}
    desiredState: RUNNING          # optional: RUNNING or STOPPED
    inNetwork: true                # optional
    properties: {motd: Welcome}    # optional: only these keys are compared
    plugins: [luckperms, {id: worldedit, version: "7.3.0"}]   # optional: installed if missing
Each prints server/<name> created, configured or unchanged; a second apply changes nothing.`;

export function registerApply(program: Command): void {
  withGlobals(program.command('apply'))
    .description('create or change servers to match a YAML or JSON file')
    .addHelpText('after', applyHelp)
    .requiredOption('-f, --filename <file>', 'the file, or - for stdin')
    .option('--dry-run', 'show what would change, and change nothing')
    .option('--timeout <duration>', 'how long a new server may take to install, or a software update to end, before its properties and plugins are set', '5m')
    .action(async (opts: { filename: string; dryRun?: boolean; timeout: string }, cmd: Command) => {
      const timeoutMs = parseDuration(opts.timeout);
      const servers = parseManifest(opts.filename === '-' ? await readAll(process.stdin) : await readFile(opts.filename, 'utf8'));
      const { client, format } = await connect(cmd);
      const outcomes: Outcome[] = [];
      let failed: unknown;
      for (const desired of servers) {
        try {
          const teamId = (await resolve(client, kinds.team, desired.team)).id;
          const current = await currentOf(client, desired, teamId);
          const plan = planServer(desired, current);
          if (!opts.dryRun && plan.action !== 'unchanged') await carryOut(client, desired, teamId, plan, current, timeoutMs);
          const outcome: Outcome = { kind: 'Server', name: desired.name, team: desired.team, result: plan.action, changes: plan.changes };
          outcomes.push(outcome);
          report(outcome, opts.dryRun === true, format);
        } catch (e) {
          // One server's refusal does not stop the others; the exit status still says something failed.
          if (!(e instanceof ApiError || e instanceof CliError)) throw e;
          process.stderr.write(`server/${desired.name}: ${e instanceof ApiError ? e.message : `error: ${e.message}`}\n`);
          failed ??= e;
        }
      }
      if (format === 'json' || format === 'yaml') print(document({ items: outcomes }, format));
      if (failed) throw new CliError(`${servers.length - outcomes.length} of ${servers.length} servers not applied`);
    });
}
