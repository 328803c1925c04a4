import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import { SimproxyConfig, type SimproxyConfigSpec, type SimproxyRouteSpec } from '../shared/simproxy-config.js';

export class ProxyConfigError extends Error {
  override name = 'ProxyConfigError';
}

const validate = new Ajv({ allErrors: false, strict: false }).compile(SimproxyConfig);

/** Reads and checks the config file; returns its text too, so an unchanged rewrite can be ignored. */
export async function readProxyConfig(path: string): Promise<{ config: SimproxyConfigSpec; text: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ProxyConfigError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProxyConfigError(`${path} is not valid JSON (${(error as Error).message})`);
  }
  if (!validate(value)) {
    const e = validate.errors?.[0];
    throw new ProxyConfigError(`${path}: ${e ? `${e.instancePath || '(file)'} ${e.message ?? 'is invalid'}` : 'invalid'}`);
  }
  return { config: value, text };
}

/**
 * The order a new connection tries the routes in, as Velocity's `try` list: the lobby first when
 * it is among the routes, then the others as the file lists them.
 */
export function routeOrder(config: SimproxyConfigSpec): SimproxyRouteSpec[] {
  const lobby = config.routes.find((r) => r.serverId === config.lobbyServerId);
  return lobby ? [lobby, ...config.routes.filter((r) => r !== lobby)] : [...config.routes];
}
