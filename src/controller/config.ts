import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gamePortsRule, parseGamePorts } from '../shared/game-ports.js';
import type { PortRange } from '../shared/link/messages.js';
import { defaultWebDir } from './http/web-ui.js';

export interface ControllerConfig {
  dataDir: string;
  httpPort: number;
  grpcPort: number;
  host: string;
  mongodbUri?: string;
  catalogSource?: string;
  /** Minutes between catalog syncs; 0 syncs only at start and on POST /catalog/sync. */
  catalogSyncMinutes: number;
  templatesDir?: string;
  /** The built web UI (default: `dist/web` of this installation). */
  webDir: string;
  tlsCert?: string;
  tlsKey?: string;
  localAgent: boolean;
  /** The game port range the local Agent offers (passed on as its `--game-ports`); its default when absent. */
  localAgentGamePorts?: PortRange;
}

export class ConfigError extends Error {}

const flags = {
  'data-dir': { env: 'CAIRN_DATA_DIR' },
  'http-port': { env: 'CAIRN_HTTP_PORT' },
  'grpc-port': { env: 'CAIRN_GRPC_PORT' },
  host: { env: 'CAIRN_HOST' },
  'mongodb-uri': { env: 'MONGODB_URI' },
  'catalog-source': { env: 'CAIRN_CATALOG_SOURCE' },
  'catalog-sync-minutes': { env: 'CAIRN_CATALOG_SYNC_MINUTES' },
  'templates-dir': { env: 'CAIRN_TEMPLATES_DIR' },
  'web-dir': { env: 'CAIRN_WEB_DIR' },
  'tls-cert': { env: 'CAIRN_TLS_CERT' },
  'tls-key': { env: 'CAIRN_TLS_KEY' },
  'game-ports': { env: 'CAIRN_GAME_PORTS' },
} as const;

function port(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`--${name} must be a port number 0..65535, got ${JSON.stringify(raw)}`);
  return n;
}

function syncMinutes(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 10_080) throw new ConfigError(`--catalog-sync-minutes must be a whole number 0..10080, got ${JSON.stringify(raw)}`);
  return n;
}

function gamePorts(raw: string | undefined): PortRange | undefined {
  if (raw === undefined) return undefined;
  const range = parseGamePorts(raw);
  if (!range) throw new ConfigError(`--game-ports must be ${gamePortsRule}, got ${JSON.stringify(raw)}`);
  return range;
}

/** Flags win over environment variables, which win over defaults. */
export function parseControllerConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): ControllerConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(Object.keys(flags).map((k) => [k, { type: 'string' as const }])),
      'local-agent': { type: 'boolean' },
    },
    strict: true,
  });
  const get = (name: keyof typeof flags): string | undefined => {
    const v = (values as Record<string, string | undefined>)[name] ?? env[flags[name].env];
    return v === undefined || v === '' ? undefined : v;
  };
  const config: ControllerConfig = {
    dataDir: resolve(get('data-dir') ?? './data'),
    httpPort: port('http-port', get('http-port') ?? '8080'),
    grpcPort: port('grpc-port', get('grpc-port') ?? '8443'),
    host: get('host') ?? '127.0.0.1',
    mongodbUri: get('mongodb-uri'),
    catalogSource: get('catalog-source'),
    catalogSyncMinutes: syncMinutes(get('catalog-sync-minutes') ?? '60'),
    templatesDir: get('templates-dir') === undefined ? undefined : resolve(get('templates-dir')!),
    webDir: resolve(get('web-dir') ?? defaultWebDir()),
    tlsCert: get('tls-cert'),
    tlsKey: get('tls-key'),
    localAgent: (values as Record<string, unknown>)['local-agent'] === true || env.CAIRN_LOCAL_AGENT === '1',
    localAgentGamePorts: gamePorts(get('game-ports')),
  };
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) throw new ConfigError('--tls-cert and --tls-key go together');
  return config;
}
