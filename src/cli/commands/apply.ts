import { readFile } from 'node:fs/promises';
import { text as readAll } from 'node:stream/consumers';
import type { Command } from 'commander';
import type { PluginInstallation, PropertiesView, ServerDetail, ServerItem } from '../api-types.js';
import { diffLines, planServer, type Change, type Current, type Plan } from '../apply-plan.js';
import { carryOut, PartlyApplied, rehearse } from '../apply-run.js';
import { resolvePlugins } from '../catalog-plugins.js';
import type { CliClient } from '../client.js';
import { connect, print, withGlobals } from '../context.js';
import { parseDuration } from '../duration.js';
import { ApiError, CliError } from '../errors.js';
import { creationGaps, parseManifest, type DesiredServer } from '../manifest.js';
import { document, type Format } from '../output.js';
import { ambiguity, kinds, resolve } from '../resolve.js';

async function currentOf(client: CliClient, desired: DesiredServer, teamId: string): Promise<Current | undefined> {
  const named = (await client.all<ServerItem>('/servers', { teamId })).filter((s) => s.name === desired.name);
  if (named.length > 1) throw ambiguity(kinds.server, desired.name, named.map((s) => s.id));
  if (named.length === 0) return undefined;
  const server = named[0];
  const current: Current = { server };
  if (desired.properties) current.properties = (await client.get<PropertiesView>(`/servers/${server.id}/properties`)).properties;
  if (desired.plugins) current.plugins = await client.all<PluginInstallation>(`/servers/${server.id}/plugins`);
  // Only the server's detail shows its sleep setting.
  if (desired.sleep !== undefined) current.sleep = (await client.get<ServerDetail>(`/servers/${server.id}`)).sleep ?? null;
  return current;
}

/**
 * Everything that can be checked without changing anything (the team, the server, what creating
 * it needs, the catalog's plugins and versions), so that a file the API would refuse halfway
 * changes nothing.
 */
async function prepare(client: CliClient, desired: DesiredServer): Promise<{ teamId: string; current?: Current; plan: Plan }> {
  const teamId = (await resolve(client, kinds.team, desired.team)).id;
  const current = await currentOf(client, desired, teamId);
  const gaps = current ? [] : creationGaps(desired);
  if (gaps.length > 0) throw new CliError(`the server does not exist, and creating it needs ${gaps.join(' and ')}`);
  const plugins = await resolvePlugins(client, desired.plugins ?? []);
  return { teamId, current, plan: planServer(desired, current, plugins) };
}

/** What happened to one server; `done` lists what did change when a later step failed. */
interface Outcome {
  kind: 'Server';
  name: string;
  team: string;
  result: Plan['action'] | 'failed';
  changes: Change[];
  done?: string[];
  error?: string;
}

function report(outcome: Outcome, dryRun: boolean, format: Format): void {
  if (outcome.result === 'failed') {
    const what = outcome.done && outcome.done.length > 0 ? '' : 'not applied: ';
    process.stderr.write(`server/${outcome.name}: ${what}${outcome.error ?? ''}\n`);
    return;
  }
  if (format === 'name') return print(`server/${outcome.name}\n`);
  if (format === 'json' || format === 'yaml') return;
  print(`server/${outcome.name} ${outcome.result}${dryRun ? ' (dry run)' : ''}\n`);
  // A real run shows only what restarts a running game: that is what an operator did not see coming.
  const shown = dryRun ? outcome.changes : outcome.changes.filter((c) => c.effect === 'restart');
  print(diffLines(shown).map((l) => `${l}\n`).join(''));
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
    plugins: [luckperms, {id: sample:worldedit, version: "7.3.8"}]   # optional: a catalog slug or id; installed if missing
    sleep: {afterEmpty: 10m}       # optional: sleep after 10m with nobody online (or afterEmptySeconds: 600);
                                   # wakeOnJoin: false leaves waking to cairn start; sleep: null turns it off
For an existing server only the fields the file names are compared (software and resources may be
left out, or only cpu or memory named); creating one needs software and both resources.
Each prints server/<name> created, configured or unchanged; a change that restarts a running
server says "will restart" (with --dry-run too). --dry-run asks the API to check the create or
the resource and network change without making it, so it is refused where the real run would be
(capacity, a taken name, permissions). Everything is checked before the first change;
a step that fails after one prints what was done ("created, but ..."). A second apply changes nothing.`;

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
      for (const desired of servers) {
        const outcome: Outcome = { kind: 'Server', name: desired.name, team: desired.team, result: 'failed', changes: [] };
        try {
          const { teamId, current, plan } = await prepare(client, desired);
          outcome.changes = plan.changes;
          if (plan.action !== 'unchanged') {
            await (opts.dryRun
              ? rehearse(client, desired, teamId, plan, current?.server.id)
              : carryOut(client, desired, teamId, plan, current?.server.id, timeoutMs, opts.timeout));
          }
          outcome.result = plan.action;
        } catch (e) {
          // One server's refusal does not stop the others; the exit status still says something failed.
          if (!(e instanceof ApiError || e instanceof CliError)) throw e;
          outcome.error = e.message;
          if (e instanceof PartlyApplied) outcome.done = e.done;
        }
        outcomes.push(outcome);
        report(outcome, opts.dryRun === true, format);
      }
      if (format === 'json' || format === 'yaml') print(document({ items: outcomes }, format));
      const failed = outcomes.filter((o) => o.result === 'failed');
      if (failed.length > 0) {
        const partly = failed.filter((o) => o.done && o.done.length > 0).length;
        throw new CliError(`${failed.length} of ${servers.length} servers not applied${partly > 0 ? ` (${partly} of them partly)` : ''}`);
      }
    });
}
