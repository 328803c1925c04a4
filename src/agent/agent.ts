import * as grpc from '@grpc/grpc-js';
import { protocolVersion } from '../shared/link/proto.js';
import { ensurePrivateDir } from '../shared/private-dir.js';
import type { Logger } from '../shared/logger.js';
import { cairnVersion } from '../shared/version.js';
import { backoffDelay, defaultBackoff, type BackoffPolicy } from '../shared/backoff.js';
import type { AgentConfig } from './config.js';
import { CredentialStore, type StoredCredential } from '../shared/credential-store.js';
import { controllerChannel, enrollOver, EnrollmentRefused } from './link/enroll.js';
import { EnrollmentAttemptStore } from './link/enrollment-attempt.js';
import { allocatable, hostFacts } from './status/host-facts.js';
import { AgentLinkClient } from './link/link-client.js';
import { linkCredentials, tlsProblem } from './link/link-credentials.js';
import { SilenceMemory } from './link/silence-memory.js';
import { ArtifactFetcher } from './plugins/artifact-fetcher.js';
import { PluginPlacer } from './plugins/plugin-placer.js';
import { pluginFolderOf } from '../shared/plugin-folder.js';
import { boxesForAgent } from './isolation/boxes-for-agent.js';
import { formatGameUids } from './isolation/game-uids.js';
import { discoverJava } from './java/java-discovery.js';
import { Installer } from './reconciler/installer.js';
import { registerPrefetch } from './reconciler/register-prefetch.js';
import { openSleepingPorts } from './sleeper/sleeping-ports.js';
import type { SleeperPool } from './sleeper/sleeper-pool.js';
import { Reconciler } from './reconciler/reconciler.js';
import { narrowAgentFiles } from './reconciler/server-home.js';
import { downloadCache, pluginCache } from './reconciler/server-paths.js';
import { ProcessRuntime } from './runtime/process-runtime.js';
import { UsageSampler } from './status/host-usage.js';
import { registerConsole } from './console/register-console.js';
import { registerFiles } from './files/register-files.js';
import { registerUsage } from './status/register-usage.js';
import { sweepAllUploadTemps } from './files/upload-sweep.js';
import { registerBackupOperations } from './transfers/register-backups.js';
import { Quiescer } from './transfers/quiesce.js';

/** No credential in the data dir and no token to get one. */
export class NotEnrolledError extends Error {
  constructor(path: string) {
    super(`no Node credential at ${path}: give --enrollment-token the first time`);
    this.name = 'NotEnrolledError';
  }
}

export interface AgentOptions {
  backoff?: BackoffPolicy;
  /** The sleeping ports the caller opened already (main.ts, before loading this); opened here otherwise. */
  sleepers?: SleeperPool;
  /**
   * The host's usage for heartbeats, when the caller samples one host for many Agents in one
   * process (the fleet bench: 625 Agents sampling the same cores and disk each heartbeat cost a
   * quarter of their process's CPU); a UsageSampler of the data dir otherwise.
   */
  hostUsage?: Pick<UsageSampler, 'sample'>;
}

export interface RunningAgent {
  nodeId: string;
  link: AgentLinkClient;
  reconciler: Reconciler;
  /** Resumes quiesced servers and removes stages (within a deadline), then lets go of the link and the games. */
  stop(): Promise<void>;
}

/**
 * Enrolls once, then keeps the credential for every later start. While the Controller is
 * unreachable or busy (or an answer is lost) it retries with backoff and jitter, presenting the
 * same enrollment attempt id, so a retry after a lost answer is answered rather than refused.
 */
async function credentialFor(config: AgentConfig, credentials: grpc.ChannelCredentials, logger: Logger, backoff: BackoffPolicy): Promise<StoredCredential & { channel?: grpc.Channel }> {
  const store = new CredentialStore(config.dataDir);
  const stored = await store.load();
  if (stored) {
    if (config.enrollmentToken) logger.info({ event: 'token_ignored' }, 'already enrolled; the enrollment token is not needed');
    return stored;
  }
  if (!config.enrollmentToken) throw new NotEnrolledError(store.path);
  const attempts = new EnrollmentAttemptStore(config.dataDir);
  const enrollmentAttemptId = await attempts.idFor(config.enrollmentToken);
  for (let attempt = 0; ; attempt++) {
    // A fresh channel per attempt: a failed one waits out gRPC's own reconnect backoff, not ours.
    const channel = controllerChannel(config.controller, credentials);
    try {
      const facts = hostFacts();
      const response = await enrollOver(channel, {
        enrollmentToken: config.enrollmentToken, hostname: facts.hostname, agentVersion: cairnVersion, enrollmentAttemptId,
      });
      const value = { nodeId: response.nodeId, credential: response.credential };
      await store.save(value);
      await attempts.forget();
      logger.info({ event: 'enrolled', nodeId: value.nodeId }, 'enrolled; credential stored');
      return { ...value, channel };
    } catch (err) {
      channel.close();
      if (err instanceof EnrollmentRefused) throw err;
      const delay = backoffDelay(attempt, backoff);
      const explained = tlsProblem((err as Partial<grpc.ServiceError>).details ?? (err as Error).message, config);
      if (explained) logger.error({ event: 'tls_refused', err: (err as Error).message }, explained);
      logger.warn({ event: 'enroll_retry', err: (err as Error).message, inMs: delay }, 'enrollment did not complete (Controller unreachable, busy or slow); retrying');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** The Agent: enroll if needed, then keep the link open with hello and heartbeats. */
export async function runAgent(config: AgentConfig, logger: Logger, options: AgentOptions = {}): Promise<RunningAgent> {
  const backoff = options.backoff ?? defaultBackoff;
  // The credential and every server's files live here: this uid alone may walk in (games run as others).
  const looseMode = await ensurePrivateDir(config.dataDir, { walkable: true });
  if (looseMode !== undefined) logger.warn({ event: 'data_dir_tightened', dataDir: config.dataDir, was: looseMode.toString(8) }, 'the data dir was open to other users; it is now 0700');
  const narrowed = await narrowAgentFiles(config.dataDir);
  if (narrowed > 0) logger.warn({ event: 'data_files_tightened', dataDir: config.dataDir, entries: narrowed }, `narrowed ${narrowed} of the Agent's files and directories to 0600/0700`);
  const sleepers = options.sleepers ?? await openSleepingPorts(config.dataDir, logger);
  const credentials = await linkCredentials(config);
  // Before enrolling: an Agent refused its uid range must not use up its token.
  const javas = await discoverJava({ given: config.javas, javaHome: process.env.JAVA_HOME }, logger);
  const boxes = await boxesForAgent({ ...config, javas: javas.map((j) => j.path) }, logger);
  const { nodeId, credential, channel: enrollmentChannel } = await credentialFor(config, credentials, logger, backoff).catch(async (e: unknown) => {
    await boxes.close();
    await sleepers.closeAll();
    throw e;
  });
  const sampler = options.hostUsage ?? new UsageSampler(config.dataDir);
  const overrides = { cpuMillis: config.cpuMillis, memoryBytes: config.memoryBytes, diskBytes: config.diskBytes };
  const runtime = new ProcessRuntime({ dataDir: config.dataDir, logger });
  // Installed plugin jars come from the Controller over the link (never the internet), cached by sha256.
  const fetcher = new ArtifactFetcher({ address: config.controller, channelCredentials: credentials, credential });
  const plugins = new PluginPlacer(pluginCache(config.dataDir), fetcher, logger);
  const installer = new Installer(downloadCache(config.dataDir), fetcher);
  const isolationSince = new Date().toISOString();
  // Copies hold servers still through it; the reconciler asks it before a server falls asleep.
  const quiescer = new Quiescer(runtime, logger);
  // Exits are routed to the reconciler from its construction on, so none found while adopting is lost.
  const reconciler = new Reconciler({
    dataDir: config.dataDir,
    runtime,
    installer,
    boxes,
    host: { javas, bindAddress: config.bindAddress },
    logger,
    restartBackoffMs: config.restartBackoffMs,
    statusIntervalMs: config.statusIntervalMs,
    beforeStart: (desired, serverDir, template) => plugins.place(desired.plugins ?? [], serverDir, boxes.identityOf(desired.serverId), pluginFolderOf(template.platform)),
    sleepers,
    heldForCopy: (serverId) => quiescer.holds(serverId),
  });
  const silence = new SilenceMemory(config.dataDir);
  const link = new AgentLinkClient({
    address: config.controller,
    channelCredentials: credentials,
    credential,
    enrollmentChannel,
    logger,
    backoff,
    explainError: (details) => tlsProblem(details, config),
    silenceLimitMs: await silence.load(),
    onSilenceLimit: (ms) => void silence.save(ms).catch((err: unknown) => logger.warn({ err }, 'keeping the Controllers\' silence limit for the next start failed')),
    hello: async () => ({
      agentVersion: cairnVersion,
      protocolVersion,
      host: hostFacts(),
      allocatable: await allocatable(config.dataDir, overrides),
      knownServerIds: reconciler.serverIds(),
      gamePorts: config.gamePorts,
      acceptsDesiredChanges: true,
      isolation: { ...boxes.plan.support, disk: reconciler.disk.mode, gameUids: boxes.plan.support.users ? formatGameUids(config.gameUids) : '' },
      runtimes: javas,
    }),
    heartbeat: async () => {
      const sample = await sampler.sample();
      const isolation = boxes.nodeCondition(isolationSince);
      return { ...sample, conditions: isolation ? [...sample.conditions, isolation] : sample.conditions, sentAtUnixMs: Date.now() };
    },
  });
  reconciler.attach(link);
  await sweepAllUploadTemps(config.dataDir, logger);
  registerConsole({ link, reconciler, runtime });
  const files = registerFiles({ dataDir: config.dataDir, link, reconciler, identityOf: (serverId) => boxes.identityOf(serverId), logger });
  registerUsage(link, reconciler);
  const backups = await registerBackupOperations({ dataDir: config.dataDir, link, reconciler, runtime, installer, logger, quiescer, bindAddress: config.bindAddress });
  registerPrefetch(link, installer);
  link.start();
  return {
    nodeId,
    link,
    reconciler,
    stop: async () => {
      await backups.shutdown();
      link.stop();
      // Uploads half done are nobody's now: their temporary files go before the process does.
      await files.stop();
      await reconciler.saveHistories();
      reconciler.stop();
      await boxes.close();
    },
  };
}
