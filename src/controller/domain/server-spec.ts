import type { Static } from 'typebox';
import type {
  convergenceValues, CopyPath, desiredStates, phases, ResourcesSchema, RestartPolicySchema, runtimeStates, SoftwareSchema,
} from '../schemas/servers.js';
import type { Players, ResourceAmounts, StatusCondition } from './status.js';

/**
 * The server vocabulary shared by the machine, the services and the store. Shapes and values the
 * API shows are the schemas' (named here as types); names differ from the link's (`Resources`,
 * `DesiredState`, `RuntimeState`, ...), whose shapes differ.
 */
export type ServerDesiredState = (typeof desiredStates)[number];

export type Phase = (typeof phases)[number];

export type ServerRuntimeState = (typeof runtimeStates)[number];

export type Convergence = (typeof convergenceValues)[number];

export type ServerKind = 'GAME_SERVER' | 'PROXY';

/** The template and version a server runs. */
export type ServerSoftware = Static<typeof SoftwareSchema>;

/** CPU and memory a server reserves on its Node (held even while it is stopped); also a Node's reserved and free sums. */
export type Reservation = Static<typeof ResourcesSchema>;

export type ServerRestartPolicy = Static<typeof RestartPolicySchema>;

export const defaultRestartPolicy: ServerRestartPolicy = { maxRestarts: 3, windowSeconds: 300 };

/** What should be: every change bumps the server's generation. */
export interface ServerDesired {
  state: ServerDesiredState;
  software: ServerSoftware;
  resources: Reservation;
  inNetwork: boolean;
  /** `network.egressAllow`: `CIDR[:PORT]` entries the server's game may connect to besides the internet (global administrators set them); absent: none. */
  egressAllow?: string[];
  restartPolicy: ServerRestartPolicy;
  /** Ids of conditions the operator acknowledged (a safety stop may lift once acknowledged). */
  acknowledgedConditions: string[];
  /** Bumped by POST restart, so the Agent restarts a server whose other fields did not change. */
  restartNonce: number;
  /** Sleep when nobody plays (templates with a player count); absent: never. */
  sleep?: ServerSleep;
  /** Bumped by POST start of a sleeping server, so its Agent wakes it. */
  wakeNonce?: number;
}

/** `sleep`: how long the server stays up with nobody online, and whether a login wakes it. */
export interface ServerSleep {
  afterEmptySeconds: number;
  wakeOnJoin: boolean;
}

/** What the Agent last reported; written only from Agent reports. */
export interface ServerObserved {
  observedGeneration: number;
  runtimeState?: ServerRuntimeState;
  installed: boolean;
  /** The Agent will restart the process by itself (crash within the restart policy). */
  restarting: boolean;
  /**
   * The network membership the process was started with, while it starts or runs (false otherwise).
   * Membership applies at a start: only a member started as one is routed to.
   */
  startedInNetwork: boolean;
  usage: ResourceAmounts;
  conditions: StatusCondition[];
  startedAt?: string;
  /** The game's process id on its Node while it starts or runs. */
  pid?: number;
  /** Players online and the most the server takes, as its last Server List Ping answered. */
  players?: Players;
  /** Set while the server sleeps (its game stopped for want of players, its port answered by the Agent). */
  sleeping?: { since: string };
  /** Its last wake on its Agent, kept until it sleeps again: by a login (`player`) or a start. */
  lastWake?: { at: string; player?: string };
  reportedAt?: string;
}

export const emptyObserved = (): ServerObserved => ({
  observedGeneration: 0,
  installed: false,
  restarting: false,
  startedInNetwork: false,
  usage: { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 },
  conditions: [],
});

export type WorkflowKind = 'PROVISION' | 'MIGRATE' | 'RESTORE' | 'UPDATE' | 'DELETE';

export interface Workflow {
  kind: WorkflowKind;
  startedAt: string;
  step: string;
  /**
   * While true the server's Node is told to keep it stopped whatever its desired state (a restore
   * replaces its files, a migration moves them); the desired state itself is not changed.
   */
  hold?: boolean;
  /** MIGRATE: where the server goes, and the game port held for it there. */
  targetNodeId?: string;
  targetGamePort?: number;
  /** MIGRATE: how the files went, once the first copy chose (the Agents could reach each other, or not). */
  copyPath?: CopyPath;
  /** MIGRATE: the Node it leaves, once it has switched (its copy is removed last). */
  sourceNodeId?: string;
  /**
   * MIGRATE: a Node the server is not placed on that must remove its copy (the source once the
   * server has switched, or the target when a rollback cannot tell whether its commit happened).
   */
  removeOnNodeId?: string;
  /** RESTORE: the backup being restored, and the PRE_RESTORE backup taken first. */
  backupId?: string;
  preRestoreBackupId?: string;
  /** RESTORE, UPDATE: the stage being committed, so a Controller that lost the commit's answer can ask the Node. */
  stageId?: string;
  /** UPDATE: the software the server ran and the software it goes to. */
  fromSoftware?: ServerSoftware;
  toSoftware?: ServerSoftware;
  /** UPDATE: where the PRE_UPDATE backup goes, and the backup once taken (the rollback's source). */
  backupDestinationId?: string;
  preUpdateBackupId?: string;
  /** UPDATE: the PRE_UPDATE backup is only the rollback copy (no destination was asked for): removed when the workflow ends. */
  rollbackCopy?: boolean;
}

/** The workflow facts a step may change (kind and start are fixed when it begins). */
export type WorkflowFacts = Omit<Workflow, 'kind' | 'startedAt' | 'step'>;

/**
 * A workflow that could not finish and was rolled back (the server is READY again): shown as a
 * Controller condition (reason MIGRATION_FAILED, RESTORE_FAILED or UPDATE_FAILED) until acknowledged or the next
 * workflow of the server succeeds.
 */
export interface WorkflowFailure {
  id: string;
  reason: 'MIGRATION_FAILED' | 'RESTORE_FAILED' | 'UPDATE_FAILED';
  message: string;
  at: string;
}
