#!/usr/bin/env node
import { parse, UsageError } from './args.js';
import { ApiError, CliClient, loadCredentials } from './client.js';
import type { CommandGroup } from './command.js';
import { auditCommands, roleCommands, teamCommands, tokenCommands, userCommands } from './commands/accounts.js';
import { nodeCommands, serverCommands } from './commands/fleet.js';
import { sessionCommands } from './commands/session.js';

const groups: CommandGroup[] = [sessionCommands, userCommands, teamCommands, roleCommands, tokenCommands, nodeCommands, serverCommands, auditCommands];

function usage(): string {
  const lines = ['usage: cairn GROUP VERB [options]   (output is JSON; --url/--token or CAIRN_URL/CAIRN_TOKEN override `cairn auth login`)', ''];
  for (const g of groups) {
    lines.push(`${g.name}: ${g.summary}`);
    for (const v of Object.values(g.verbs)) lines.push(`  ${v.usage}`);
  }
  return lines.join('\n');
}

/** Explicit flags, then the environment, then what `cairn auth login` stored. */
async function clientFor(url: string | undefined, token: string | undefined): Promise<CliClient | undefined> {
  const stored = await loadCredentials();
  const finalUrl = url || process.env.CAIRN_URL || stored?.url;
  const finalToken = token || process.env.CAIRN_TOKEN || stored?.token;
  return finalUrl && finalToken ? new CliClient(finalUrl, { token: finalToken }) : undefined;
}

async function main(argv: string[]): Promise<number> {
  const args = parse(argv);
  const groupName = args.positionals.at(0);
  const verbName = args.positionals.at(1);
  if (args.values.help || !groupName) {
    process.stdout.write(usage() + '\n');
    return groupName || args.values.help ? 0 : 2;
  }
  const group = groups.find((g) => g.name === groupName);
  const verb = group?.verbs[verbName ?? ''];
  if (!verb) throw new UsageError(`unknown command: ${args.positionals.slice(0, 2).join(' ')}`);
  args.positionals = args.positionals.slice(2);
  const client = verb.anonymous ? undefined : await clientFor(args.values.url as string | undefined, args.values.token as string | undefined);
  const result = await verb.run(args, client);
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`cairn: ${(error as Error).message}\n\n${usage()}\n`);
      process.exit(2);
    }
    process.stderr.write(`cairn: ${error instanceof ApiError ? error.message : (error as Error).message}\n`);
    process.exit(1);
  },
);
