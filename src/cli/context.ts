import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { CliClient } from './client.js';
import { loadCredentials } from './credentials.js';
import { CliError, UsageError } from './errors.js';
import { formats, parseFormat, type Format } from './output.js';

/** Commands whose own `--url` names something other than the Controller (a webhook's endpoint). */
const ownUrl = new WeakSet<Command>();

/**
 * Adds the global flags to `cmd`. Every command carries them (not only the root) so they may
 * follow the verb as in kubectl, while `cairn create server --version V` keeps its own `--version`.
 * A command with `ownUrl` (the contract's `create webhook --url`) takes the Controller's address
 * from before the verb (`cairn --url U create webhook ...`), CAIRN_URL or `cairn login`.
 */
export function withGlobals(cmd: Command, options: { ownUrl?: boolean } = {}): Command {
  if (options.ownUrl) ownUrl.add(cmd);
  else cmd.option('--url <url>', 'the Controller, e.g. http://127.0.0.1:8080 (env CAIRN_URL; default: what `cairn login` stored)');
  return cmd
    .option('--token <token>', 'an API token (env CAIRN_TOKEN; default: what `cairn login` stored)')
    .option('--ca <file>', 'the CA (PEM) that signed the Controller\'s HTTPS certificate, trusted instead of the system\'s (env CAIRN_CA; default: what `cairn login` stored)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(formats));
}

export interface Globals {
  url?: string;
  token?: string;
  ca?: string;
  format: Format;
}

/** The global flags as given on the command or any command above it, the nearest winning. */
export function globalsOf(cmd: Command): Globals {
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.push(c);
  const pick = (key: string) => chain.filter((c) => key !== 'url' || !ownUrl.has(c)).map((c) => c.opts()[key] as string | undefined).find((v) => v !== undefined && v !== '');
  return { url: pick('url'), token: pick('token'), ca: pick('ca'), format: parseFormat(pick('output')) };
}

export interface Ctx {
  client: CliClient;
  format: Format;
}

/** The CA file a command trusts: the flag, then CAIRN_CA, then `fallback` (what `cairn login` stored); an absolute path. */
export function caPathOf(globals: Globals, fallback?: string): string | undefined {
  const path = globals.ca || process.env.CAIRN_CA || fallback;
  return path ? resolve(path) : undefined;
}

/** The PEM of a `--ca` file; a file that cannot be read is a usage error naming it. */
export async function readCa(path: string | undefined): Promise<Buffer | undefined> {
  if (path === undefined) return undefined;
  try {
    return await readFile(path);
  } catch (e) {
    throw new UsageError(`--ca ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Flags, then CAIRN_URL / CAIRN_TOKEN / CAIRN_CA, then what `cairn login` stored. */
export async function connect(cmd: Command): Promise<Ctx> {
  const globals = globalsOf(cmd);
  const stored = await loadCredentials();
  const url = globals.url || process.env.CAIRN_URL || stored?.url;
  const token = globals.token || process.env.CAIRN_TOKEN || stored?.token;
  if (!url || !token) throw new CliError('not signed in: run `cairn login --url URL --username NAME --password-stdin`, or set CAIRN_URL and CAIRN_TOKEN');
  const ca = await readCa(caPathOf(globals, stored?.ca));
  return { client: new CliClient(url, { token }, ca), format: globals.format };
}

/** A repeatable flag whose values may also be comma-separated (`--role a --role b,c`). */
export const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',').filter(Boolean)];

export const print = (text: string) => {
  if (text !== '') process.stdout.write(text);
};
