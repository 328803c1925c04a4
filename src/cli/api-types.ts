/**
 * The parts of the public API's answers the CLI reads (the OpenAPI document at /api/v1/openapi.json
 * is the full shape). Declared here because the CLI speaks only HTTP and may not import the
 * Controller's schemas; `-o json` and `-o yaml` print what the API sent, not these types.
 */

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export interface Condition {
  id: string;
  source: string;
  reason: string;
  message: string;
  since: string;
}

export interface Resources {
  cpuMillis: number;
  memoryBytes: number;
}

export interface Software {
  template: string;
  version: string;
  build?: string;
}

export interface ServerItem {
  id: string;
  name: string;
  teamId: string;
  nodeId?: string;
  kind: string;
  inNetwork: boolean;
  desiredState: string;
  generation: number;
  phase: string;
  runtimeState?: string;
  convergence: string;
  software: Software;
  resources: Resources;
  gamePort?: number;
  conditionCount: number;
}

export interface ServerDetail extends ServerItem {
  observedGeneration: number;
  ports: { name: string; protocol: string; hostPort: number }[];
  restartPolicy: { maxRestarts: number; windowSeconds: number };
  conditions: Condition[];
  acknowledgedConditions: string[];
  markers: string[];
  status: { runtimeState?: string; usage: Resources & { diskBytes: number }; conditions: Condition[]; startedAt?: string };
  workflow?: { kind: string; startedAt: string; step: string; targetNodeId?: string };
  createdAt: string;
  updatedAt: string;
}

export interface NodeInfo {
  id: string;
  name: string;
  adminState: string;
  acceptsPlacements: boolean;
  address?: string;
  reachAddress?: string;
  createdAt: string;
  status: {
    connectionState: string;
    agentVersion: string;
    hostname: string;
    os: string;
    arch: string;
    runtimeName: string;
    runtimeVersion: string;
    observedAddress?: string;
    allocatable: Resources & { diskBytes: number };
    usage: Resources & { diskBytes: number };
    gamePorts?: { first: number; last: number };
    lastHeartbeatAt?: string;
  };
  conditions: Condition[];
  reserved: Resources;
  free: Resources;
}

export interface EnrollmentIssued {
  node: NodeInfo;
  enrollmentToken: string;
  enrollmentExpiresAt: string;
}

export interface AgentLink {
  host?: string;
  port: number;
  tls: boolean;
}

export interface Team {
  id: string;
  name: string;
}

export interface Membership {
  userId: string;
  teamId: string;
  roleIds: string[];
}

export interface User {
  id: string;
  username: string;
  email: string;
  displayName: string;
  globalAdmin: boolean;
  globalPermissions: string[];
}

export interface Role {
  id: string;
  name: string;
  description: string;
  builtin: boolean;
  permissions: string[];
}

export interface Template {
  id: string;
  kind: string;
  networkMember: boolean;
  platform: string;
  versions: string[];
}

export interface Backup {
  id: string;
  serverId: string;
  destinationId: string;
  nodeId: string;
  trigger: string;
  state: string;
  sizeBytes: number;
  storedBytes: number;
  fileCount: number;
  error?: string;
  startedAt: string;
  finishedAt?: string;
}

export interface BackupDestination {
  id: string;
  name: string;
  kind: string;
}

export interface AuditEvent {
  id: number;
  occurredAt: string;
  actorKind: string;
  actorUserId?: string;
  action: string;
  outcome: string;
  details: Record<string, unknown>;
}

export interface FileItem {
  name: string;
  path: string;
  type: 'FILE' | 'DIRECTORY';
}

export interface PluginInstallation {
  id: string;
  pluginId: string;
  version: string;
  catalogVersionId?: string;
}

export interface CatalogPlugin {
  id: string;
  versions: { versionId: string; version: string }[];
}

export interface ConsoleLine {
  text: string;
  replay: boolean;
}
