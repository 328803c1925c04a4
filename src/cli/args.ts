import { parseArgs } from 'node:util';

export interface Parsed {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

/** Options every command understands, plus each command's own. */
export function parse(argv: string[]): Parsed {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      username: { type: 'string' },
      email: { type: 'string' },
      'display-name': { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      name: { type: 'string' },
      team: { type: 'string' },
      template: { type: 'string' },
      version: { type: 'string' },
      'cpu-millis': { type: 'string' },
      'memory-gib': { type: 'string' },
      description: { type: 'string' },
      permission: { type: 'string', multiple: true },
      role: { type: 'string', multiple: true },
      admin: { type: 'boolean' },
      'expires-at': { type: 'string' },
      action: { type: 'string' },
      'target-kind': { type: 'string' },
      'target-id': { type: 'string' },
      outcome: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  return { positionals, values };
}

export function required(parsed: Parsed, name: string): string {
  const v = parsed.values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export const optional = (parsed: Parsed, name: string) => {
  const v = parsed.values[name];
  return typeof v === 'string' ? v : undefined;
};

export class UsageError extends Error {}
