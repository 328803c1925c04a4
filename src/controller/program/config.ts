import { join, resolve } from 'node:path';
import { logFormats, type LogFormat } from '../../shared/logger.js';
import { gamePortsRule, parseGamePorts } from '../../shared/game-ports.js';
import type { PortRange } from '../../shared/link/messages.js';
import type { FlagSpec } from '../../shared/program-args.js';
import { programConfig, ProgramConfigError, wholeNumber, type ProgramSettings } from '../../shared/program-config.js';
import { defaultWebDir } from '../http/web-ui.js';
import { TrustedProxies } from '../http/client-address.js';
import { maxOidcRecheckSeconds } from '../services/identity/oidc-standing.js';
import { parseUpstreamBases, type SourceBases } from '../adapters/software/upstream-sources.js';
import { defaultLeaseTiming, isSafeTiming, leaseTimingOf, type LeaseTiming } from '../domain/lease-timing.js';

export interface ControllerConfig {
  dataDir: string;
  httpPort: number;
  grpcPort: number;
  /** The SFTP server's port (0: a free one); undefined: SFTP is off. */
  sftpPort?: number;
  host: string;
  /** The link address other Controllers send Agents to (HOST:PORT); the link's own address when absent. */
  advertiseAddress?: string;
  mongodbUri?: string;
  /** The leases of Nodes and fleet-wide jobs on MongoDB (`--lease-ttl-seconds`): shorter fails over sooner, at more store writes. */
  leaseTiming: LeaseTiming;
  catalogSource?: string;
  /** Minutes between catalog syncs; 0 syncs only at start and on POST /catalog/sync. */
  catalogSyncMinutes: number;
  templatesDir?: string;
  /** Where upstreams answer (`--software-source NAME=URL`, one per upstream); the vendors' addresses by default. */
  softwareSources: SourceBases;
  /** The Java NeoForge's and Forge's installers run with on the Controller, and their deadline. */
  installerJava: string;
  installerTimeoutMs: number;
  /** The built web UI (default: `dist/web` of this installation). */
  webDir: string;
  tlsCert?: string;
  tlsKey?: string;
  /** The CA the local Agent verifies the link with (default: the certificate itself, right when it is self-signed). */
  tlsCa?: string;
  localAgent: boolean;
  /** Accept a plaintext Agent link beyond loopback (a private network); refused without it. */
  insecureLink: boolean;
  /** Webhooks may post to loopback, link-local and private addresses (tests, a receiver on the same network). */
  allowPrivateWebhooks: boolean;
  /** The game port range the local Agent offers (passed on as its `--game-ports`); its default when absent. */
  localAgentGamePorts?: PortRange;
  /** How long a shutdown lets requests and uploads finish before it destroys their connections. */
  shutdownTimeoutMs: number;
  /** Audit events older than this many days are deleted (hourly and at start); 0 keeps them forever. */
  auditRetentionDays: number;
  /** `/metrics` answers only this bearer token when set. */
  metricsToken?: string;
  /** The key that encrypts stored secrets (OpenID client secret, TOTP seeds); created when absent. */
  secretsKeyFile: string;
  /** Where browsers reach the Controller (no trailing slash): the base of the single sign-on callback. */
  publicUrl?: string;
  /** Seconds a single sign-on provider's word holds before a session or token asks it again (at most 900). */
  oidcRecheckSeconds: number;
  /** Reverse proxies (`--trust-proxy`) whose X-Forwarded-For names the client. */
  trustedProxies: TrustedProxies;
}

export class ConfigError extends ProgramConfigError {}

const logFormatValue = (raw: string): LogFormat | undefined => (logFormats as readonly string[]).includes(raw) ? (raw as LogFormat) : undefined;

const flags = {
  'log-format': { value: 'text|json', env: 'CAIRN_LOG_FORMAT', help: 'logs on stderr as text (the default at a terminal) or JSON lines (otherwise)' },
  config: { value: 'FILE', env: 'CAIRN_CONTROLLER_CONFIG', help: 'a YAML file of settings whose keys are these long flags (data-dir: /var/lib/cairn); flags and variables win over it' },
  'data-dir': { value: 'DIR', env: 'CAIRN_DATA_DIR', help: 'where the embedded store, the setup code and backups live (default ./data)' },
  'http-port': { value: 'N', env: 'CAIRN_HTTP_PORT', help: 'HTTP API and web UI port; 0 picks a free one (default 8080)' },
  'sftp-port': { value: 'N|off', env: 'CAIRN_SFTP_PORT', help: 'the SFTP server\'s port (docs/sftp.md); 0 picks a free one, off turns SFTP off (default 2022)' },
  'grpc-port': { value: 'N', env: 'CAIRN_GRPC_PORT', help: 'the Agent link\'s port; 0 picks a free one (default 8443)' },
  host: { value: 'ADDR', env: 'CAIRN_HOST', help: 'the address both listen on (default 127.0.0.1)' },
  store: { value: 'embedded|mongodb', env: 'CAIRN_STORE', help: 'where records live: the embedded store in --data-dir, or MongoDB at MONGODB_URI (default: mongodb when a URI is given, else embedded; embedded ignores a URI)' },
  'mongodb-uri': { value: 'URI', env: 'MONGODB_URI', help: 'the MongoDB database of --store mongodb (mongodb://…/cairn; a replica set in production; docs/operations.md#mongodb)' },
  'advertise-address': { value: 'HOST:PORT', env: 'CAIRN_ADVERTISE_ADDRESS', help: 'where other Controllers on the same MongoDB send this one\'s Agents: its link as they reach it (default: --host and --grpc-port)' },
  'lease-ttl-seconds': { value: 'SECONDS', env: 'CAIRN_LEASE_TTL_SECONDS', help: 'on MongoDB, how long a Controller\'s leases on Nodes and fleet-wide jobs last, 1..3600 with a fraction: renewed every third of it, so a dead Controller\'s Nodes are driven again about this long after; shorter means more store writes (default 15)' },
  'catalog-source': { value: 'PATH_OR_URL', env: 'CAIRN_CATALOG_SOURCE', help: 'the plugin catalog feed (default: Modrinth and Hangar, the shipped sample only while neither answers)' },
  'catalog-sync-minutes': { value: 'N', env: 'CAIRN_CATALOG_SYNC_MINUTES', help: 'minutes between catalog syncs; 0 syncs at start only (default 60)' },
  'software-source': { value: 'NAME=URL', env: 'CAIRN_SOFTWARE_SOURCES', multiple: true, help: 'where versions come from: papermc=<Fill v3 root>, mojang=<version manifest URL>, fabric=<meta API /v2 root>, neoforge=<Maven root>, forge=<Maven root>, modrinth=<API /v2 root>, hangar=<API /v1 root> (these two also feed the plugin catalog); repeatable (env: comma-separated; default: the vendors\' addresses)' },
  'installer-java': { value: 'PATH', env: 'CAIRN_INSTALLER_JAVA', help: 'the java that runs NeoForge\'s and Forge\'s installers on the Controller (default: java on PATH)' },
  'installer-timeout': { value: 'SECONDS', env: 'CAIRN_INSTALLER_TIMEOUT', help: 'how long such an installer may run before it is killed and the software refused (default 600)' },
  'templates-dir': { value: 'DIR', env: 'CAIRN_TEMPLATES_DIR', help: 'service templates (default: the ones shipped)' },
  'web-dir': { value: 'DIR', env: 'CAIRN_WEB_DIR', help: 'the built web UI (default dist/web)' },
  'tls-cert': { value: 'FILE', env: 'CAIRN_TLS_CERT', help: 'TLS certificate (PEM) for HTTP and the Agent link; with --tls-key' },
  'tls-key': { value: 'FILE', env: 'CAIRN_TLS_KEY', help: 'TLS private key (PEM); with --tls-cert' },
  'tls-ca': { value: 'FILE', env: 'CAIRN_TLS_CA', help: 'the CA (PEM) that signed --tls-cert, for the local Agent to verify the link (default: --tls-cert, for a self-signed one)' },
  'game-ports': { value: 'FIRST-LAST', env: 'CAIRN_GAME_PORTS', help: 'the game port range the local Agent offers' },
  'secrets-key-file': { value: 'FILE', env: 'CAIRN_SECRETS_KEY_FILE', help: 'the key that encrypts the secrets the store keeps (OpenID client secret, TOTP seeds), created mode 0600 when absent; every Controller of one store needs the same file (default <data-dir>/secrets.key)' },
  'metrics-token': { value: 'TOKEN', env: 'CAIRN_METRICS_TOKEN', help: '/metrics then needs Authorization: Bearer TOKEN (default: open, like /healthz)' },
  'audit-retention-days': { value: 'DAYS', env: 'CAIRN_AUDIT_RETENTION_DAYS', help: 'delete audit events older than this, hourly and at start; 0 keeps them forever (default 365)' },
  'shutdown-timeout': { value: 'SECONDS', env: 'CAIRN_SHUTDOWN_TIMEOUT', help: 'on SIGTERM, how long requests get to finish before their connections are cut (default 10)' },
  'public-url': { value: 'URL', env: 'CAIRN_PUBLIC_URL', help: 'the address browsers reach the Controller at (https://cairn.example.com); single sign-on sends them back to <URL>/api/v1/auth/oidc/callback, and needs it unless its setting names redirectUri' },
  'trust-proxy': { value: 'CIDR', env: 'CAIRN_TRUST_PROXY', multiple: true, help: 'a reverse proxy\'s address or range (10.0.0.0/8); from these peers alone X-Forwarded-For names the client the sign-in throttles count; repeatable (env: comma-separated; default: none, the socket\'s peer counts)' },
  'oidc-recheck-seconds': { value: 'N', env: 'CAIRN_OIDC_RECHECK_SECONDS', help: 'how long a single sign-on provider\'s word on a user holds before their session or API token asks it again, 1..900 (default 900)' },
  'local-agent': { env: 'CAIRN_LOCAL_AGENT=1', help: 'also run an Agent on this machine, enrolled automatically' },
  'insecure-link': { env: 'CAIRN_INSECURE_LINK=1', help: 'let the Agent link listen beyond loopback without TLS (refused otherwise; a warning at every start)' },
  'allow-private-webhooks': { env: 'CAIRN_ALLOW_PRIVATE_WEBHOOKS=1', help: 'let webhooks post to loopback, link-local and private addresses (refused otherwise, so a webhook cannot reach the Controller\'s own network)' },
} as const satisfies Record<string, FlagSpec>;

const port = wholeNumber(0, 65535);

/** HOST:PORT (a bracketed IPv6 host too) with a port 1..65535. */
function hostPort(raw: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(raw);
  return match && Number(match[2]) >= 1 && Number(match[2]) <= 65535 ? raw : undefined;
}

/** Seconds with a fraction, 0..3600, as milliseconds. */
function shutdownTimeoutMs(raw: string): number | undefined {
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 && n <= 3600 ? Math.round(n * 1000) : undefined;
}

/** Seconds with a fraction, 1..3600, as the lease timing they make; a timing that leaves no room for two renewals is refused. */
function leaseTiming(raw: string): LeaseTiming | undefined {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1 || n > 3600) return undefined;
  const timing = leaseTimingOf(Math.round(n * 1000));
  return isSafeTiming(timing) ? timing : undefined;
}

const optionalPath = (raw: string | undefined) => (raw === undefined ? undefined : resolve(raw));

function publicUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) return undefined;
  return url.href.replace(/\/+$/, '');
}

function trustedProxies(raw: string | undefined): TrustedProxies {
  try {
    return new TrustedProxies(raw ? raw.split(',').filter((e) => e.trim() !== '') : []);
  } catch (e) {
    throw new ConfigError(`--trust-proxy ${(e as Error).message}`);
  }
}

function upstreamBases(raw: string | undefined): SourceBases {
  const parsed = parseUpstreamBases(raw ? raw.split(',').filter((e) => e.trim() !== '') : []);
  if ('problem' in parsed) throw new ConfigError(`--software-source ${parsed.problem}`);
  return parsed.bases;
}

const storeKinds = ['embedded', 'mongodb'] as const;
const storeKind = (raw: string) => storeKinds.find((kind) => kind === raw);

/**
 * The URI the store opens, or none for the embedded store. `--store` is the operator's choice and wins: a
 * MONGODB_URI left in the environment does not move an embedded install, and MongoDB without a URI cannot start.
 */
function mongodbUriOf(kind: (typeof storeKinds)[number] | undefined, uri: string | undefined): string | undefined {
  if (kind === 'embedded') return undefined;
  if (kind === 'mongodb' && !uri) throw new ConfigError('--store mongodb needs the database: give MONGODB_URI or --mongodb-uri (mongodb://host/cairn)');
  return uri || undefined;
}

/** Flags win over environment variables, which win over the config file, which wins over defaults. */
function configFrom(settings: ProgramSettings<keyof typeof flags>): ControllerConfig {
  const { get, on, parsed } = settings;
  // The logger took --log-format before the rest of the command line (shared/logger.ts); a wrong value is refused here.
  parsed('log-format', 'text or json', logFormatValue);
  const config: ControllerConfig = {
    dataDir: resolve(get('data-dir') ?? './data'),
    httpPort: parsed('http-port', 'a port number 0..65535', port) ?? 8080,
    grpcPort: parsed('grpc-port', 'a port number 0..65535', port) ?? 8443,
    sftpPort: get('sftp-port') === 'off' ? undefined : parsed('sftp-port', 'a port number 0..65535 or off', port) ?? 2022,
    host: get('host') ?? '127.0.0.1',
    advertiseAddress: parsed('advertise-address', 'HOST:PORT', hostPort),
    mongodbUri: mongodbUriOf(parsed('store', 'embedded or mongodb', storeKind), get('mongodb-uri')),
    leaseTiming: parsed('lease-ttl-seconds', 'seconds 1..3600 (a fraction allowed)', leaseTiming) ?? defaultLeaseTiming,
    catalogSource: get('catalog-source'),
    catalogSyncMinutes: parsed('catalog-sync-minutes', 'a whole number 0..10080', wholeNumber(0, 10_080)) ?? 60,
    templatesDir: optionalPath(get('templates-dir')),
    softwareSources: upstreamBases(get('software-source')),
    installerJava: get('installer-java') ?? 'java',
    installerTimeoutMs: (parsed('installer-timeout', 'a whole number of seconds 1..86400', wholeNumber(1, 86_400)) ?? 600) * 1000,
    webDir: resolve(get('web-dir') ?? defaultWebDir()),
    tlsCert: optionalPath(get('tls-cert')),
    tlsKey: optionalPath(get('tls-key')),
    tlsCa: optionalPath(get('tls-ca')),
    localAgent: on('local-agent'),
    insecureLink: on('insecure-link'),
    allowPrivateWebhooks: on('allow-private-webhooks'),
    localAgentGamePorts: parsed('game-ports', gamePortsRule, parseGamePorts),
    shutdownTimeoutMs: parsed('shutdown-timeout', 'seconds 0..3600', shutdownTimeoutMs) ?? 10_000,
    metricsToken: get('metrics-token') || undefined,
    secretsKeyFile: resolve(get('secrets-key-file') ?? join(get('data-dir') ?? './data', 'secrets.key')),
    auditRetentionDays: parsed('audit-retention-days', 'a whole number of days 0..36500', wholeNumber(0, 36_500)) ?? 365,
    publicUrl: parsed('public-url', 'an http(s) URL without query or credentials', publicUrl),
    oidcRecheckSeconds: parsed('oidc-recheck-seconds', `a whole number of seconds 1..${maxOidcRecheckSeconds}`, wholeNumber(1, maxOidcRecheckSeconds)) ?? maxOidcRecheckSeconds,
    trustedProxies: trustedProxies(get('trust-proxy')),
  };
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) throw new ConfigError('--tls-cert and --tls-key go together');
  if (config.tlsCa !== undefined && config.tlsCert === undefined) throw new ConfigError('--tls-ca goes with --tls-cert and --tls-key');
  return config;
}

/** `controllerHelp`: the --help text; `parseControllerCommandLine`: --help, --version or the configuration to run with; `parseControllerConfig`: the configuration of a command line that runs the Controller. */
export const { help: controllerHelp, commandLine: parseControllerCommandLine, config: parseControllerConfig } = programConfig({
  usage: 'cairn-controller [options]',
  summary: 'The Cairn Controller: the HTTP API, the web UI and the Agent link. Flags win over environment variables, which win over --config.',
  flags,
  runs: 'the Controller',
  error: ConfigError,
  build: configFrom,
});
