/**
 * TypeScript shapes of the messages of `proto/cairn/agent/v1/agent.proto`, as the loader options
 * in `proto.ts` decode them (camelCase, int64 as number, enums as names). Nested messages decode
 * as `null` when unset, so they are typed `T | null` and may be left out when sending. Oneofs
 * are discriminated unions on the loader's virtual field (`kind`, `body`, `payload`).
 */

type Maybe<T> = T | null | undefined;

export interface EnrollRequest {
  enrollmentToken: string;
  hostname: string;
  agentVersion: string;
}

export interface EnrollResponse {
  nodeId: string;
  credential: string;
}

export interface Resources {
  cpuMillis: number;
  memoryBytes: number;
  diskBytes: number;
}

export interface Condition {
  id: string;
  reason: string;
  message: string;
  since: string;
}

export interface Software {
  template: string;
  version: string;
  build: string;
}

// ---- Agent → Controller ----

export interface HostFacts {
  hostname: string;
  os: string;
  arch: string;
  runtimeName: string;
  runtimeVersion: string;
}

export interface Hello {
  agentVersion: string;
  protocolVersion: number;
  host: Maybe<HostFacts>;
  allocatable: Maybe<Resources>;
  knownServerIds: string[];
}

export interface Heartbeat {
  usage: Maybe<Resources>;
  conditions: Condition[];
  sentAtUnixMs: number;
}

export const runtimeStates = ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'CRASHED'] as const;
export type RuntimeStateName = (typeof runtimeStates)[number];
/** The wire enum names (`RUNTIME_STATE_RUNNING`, ...). */
export type RuntimeState = 'RUNTIME_STATE_UNSPECIFIED' | `RUNTIME_STATE_${RuntimeStateName}`;

export interface PortBinding {
  name: string;
  protocol: string;
  hostPort: number;
}

export interface ServerStatus {
  serverId: string;
  observedGeneration: number;
  runtimeState: RuntimeState;
  installed: boolean;
  usage: Maybe<Resources>;
  conditions: Condition[];
  ports: PortBinding[];
  startedAt: string;
  removed: boolean;
  restarting: boolean;
  restartPending: boolean;
  installError: string;
}

export interface ConsoleLine {
  serverId: string;
  text: string;
  atUnixMs: number;
  /** The line was longer than 16 KiB and was cut (proto3 default false when left out). */
  truncated?: boolean;
  /** Number of the line in the process's output; orders replayed lines against live ones (default 0). */
  seq?: number;
}

export type ConsoleEndReason = 'stopped' | 'crashed' | 'killed' | 'lost';

export interface ConsoleEnd {
  serverId: string;
  reason: ConsoleEndReason;
  exitCode: number;
  hasExitCode: boolean;
  signal: string;
}

export interface ResponseError {
  code: string;
  message: string;
}

export interface FileEntry {
  name: string;
  path: string;
  type: 'FILE' | 'DIRECTORY';
  sizeBytes: number;
  modifiedAt: string;
}

export interface FileChunk {
  offset: number;
  data: Buffer;
  eof: boolean;
  totalBytes: number;
}

export type ResponsePayload =
  | { payload?: undefined }
  | { payload: 'fileEntries'; fileEntries: { entries: FileEntry[] } }
  | { payload: 'fileChunk'; fileChunk: FileChunk }
  | { payload: 'properties'; properties: { values: Record<string, string> } }
  | { payload: 'backupResult'; backupResult: { sizeBytes: number; location: string } }
  | { payload: 'consoleReplay'; consoleReplay: { lines: string[]; entries: ConsoleLine[] } };

export type Response = {
  requestId: string;
  ok: boolean;
  error: Maybe<ResponseError>;
  more: boolean;
} & ResponsePayload;

export type AgentMessage =
  | { kind: 'hello'; hello: Hello }
  | { kind: 'heartbeat'; heartbeat: Heartbeat }
  | { kind: 'serverStatus'; serverStatus: ServerStatus }
  | { kind: 'consoleLine'; consoleLine: ConsoleLine }
  | { kind: 'response'; response: Response }
  | { kind: 'consoleEnd'; consoleEnd: ConsoleEnd };

// ---- Controller → Agent ----

export interface Welcome {
  nodeId: string;
  heartbeatIntervalMs: number;
  observedAddress: string;
}

export type DesiredRuntimeStateName = 'RUNNING' | 'STOPPED' | 'DELETED';
export type DesiredRuntimeState = 'DESIRED_RUNTIME_STATE_UNSPECIFIED' | `DESIRED_RUNTIME_STATE_${DesiredRuntimeStateName}`;

export interface DesiredServer {
  serverId: string;
  generation: number;
  software: Maybe<Software>;
  resources: Maybe<{ cpuMillis: number; memoryBytes: number }>;
  gamePort: number;
  desiredState: DesiredRuntimeState;
  restartPolicy: Maybe<{ maxRestarts: number; windowSeconds: number }>;
  acknowledgedConditionIds: string[];
  settings: Record<string, string>;
  inNetwork: boolean;
  restartNonce: number;
  templateJson: string;
  /** Installed plugin jars; absent from an older Controller. */
  plugins?: DesiredPlugin[];
}

export interface DesiredPlugin {
  installationId: string;
  fileName: string;
  sha256: string;
  sizeBytes: number;
  pluginId: string;
}

export interface FetchArtifactRequest {
  sha256: string;
}

export interface ArtifactChunk {
  data: Buffer;
  totalBytes: number;
}

export interface DesiredState {
  servers: DesiredServer[];
  revision: number;
}

export type RequestBody =
  | { body: 'consoleCommand'; consoleCommand: { serverId: string; command: string } }
  | { body: 'consoleSubscribe'; consoleSubscribe: { serverId: string; tail: number } }
  | { body: 'consoleUnsubscribe'; consoleUnsubscribe: { serverId: string } }
  | { body: 'fileList'; fileList: { serverId: string; path: string } }
  | { body: 'fileRead'; fileRead: { serverId: string; path: string; chunkBytes: number; offset?: number; length?: number } }
  | { body: 'fileWriteChunk'; fileWriteChunk: { serverId: string; path: string; uploadId: string; offset: number; data: Buffer; last: boolean; abort?: boolean } }
  | { body: 'fileDelete'; fileDelete: { serverId: string; path: string } }
  | { body: 'fileMkdir'; fileMkdir: { serverId: string; path: string } }
  | { body: 'propertiesGet'; propertiesGet: { serverId: string } }
  | { body: 'propertiesPatch'; propertiesPatch: { serverId: string; set: Record<string, string>; remove: string[] } }
  | { body: 'backup'; backup: { serverId: string; backupId: string; destinationKind: string; destinationPath: string } }
  | { body: 'restore'; restore: { serverId: string; backupId: string; destinationKind: string; destinationPath: string } };

export type Request = { requestId: string; deadlineUnixMs: number } & RequestBody;

export type ControllerMessage =
  | { kind: 'welcome'; welcome: Welcome }
  | { kind: 'desiredState'; desiredState: DesiredState }
  | { kind: 'request'; request: Request };

/** Largest chunk of file data in one message (contract: at most 1 MiB). */
export const maxChunkBytes = 1024 * 1024;
