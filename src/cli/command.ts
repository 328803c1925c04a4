import type { Parsed } from './args.js';
import type { CliClient } from './client.js';

export interface Verb {
  usage: string;
  /** Commands that do not need stored credentials (login) get no client. */
  anonymous?: boolean;
  run(args: Parsed, client: CliClient | undefined): Promise<unknown>;
}

export interface CommandGroup {
  name: string;
  summary: string;
  verbs: Record<string, Verb>;
}

export const need = (client: CliClient | undefined): CliClient => {
  if (!client) throw new Error('not signed in: run `cairn auth login` first, or set CAIRN_URL and CAIRN_TOKEN');
  return client;
};
