/** The server vocabulary shared by the machine, the services and the store. */
export const desiredStates = ['RUNNING', 'STOPPED', 'DELETED'] as const;
export type DesiredState = (typeof desiredStates)[number];

export const phases = ['PROVISIONING', 'READY', 'MIGRATING', 'RESTORING', 'UPDATING', 'DELETING', 'FAILED'] as const;
export type Phase = (typeof phases)[number];

export const runtimeStates = ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'CRASHED'] as const;
export type RuntimeState = (typeof runtimeStates)[number];

export const convergenceValues = ['CONVERGED', 'IN_PROGRESS', 'DISCREPANCY', 'UNKNOWN'] as const;
export type Convergence = (typeof convergenceValues)[number];

export type ServerKind = 'GAME_SERVER' | 'PROXY';

export interface Software {
  template: string;
  version: string;
  build?: string;
}

export interface Resources {
  cpuMillis: number;
  memoryBytes: number;
}

export interface RestartPolicy {
  /** Automatic restarts allowed within the window; 0 disables automatic restarts. */
  maxRestarts: number;
  windowSeconds: number;
}

export const defaultRestartPolicy: RestartPolicy = { maxRestarts: 3, windowSeconds: 300 };

/** What should be: every change bumps the server's generation. */
export interface ServerDesired {
  state: DesiredState;
  software: Software;
  resources: Resources;
  inNetwork: boolean;
  restartPolicy: RestartPolicy;
  /** Ids of conditions the operator acknowledged (a safety stop may lift once acknowledged). */
  acknowledgedConditions: string[];
  /** Bumped by POST restart, so the Agent restarts a server whose other fields did not change. */
  restartNonce: number;
}

export interface Condition {
  id: string;
  source: 'AGENT' | 'CONTROLLER';
  reason: string;
  message: string;
  since: string;
}

export interface Usage {
  cpuMillis: number;
  memoryBytes: number;
  diskBytes: number;
}

/** What the Agent last reported; written only from Agent reports. */
export interface ServerObserved {
  observedGeneration: number;
  runtimeState?: RuntimeState;
  installed: boolean;
  /** The Agent will restart the process by itself (crash within the restart policy). */
  restarting: boolean;
  /** The running process was started from an older spec whose change applies at next start. */
  restartPending: boolean;
  usage: Usage;
  conditions: Condition[];
  startedAt?: string;
  reportedAt?: string;
}

export const emptyObserved = (): ServerObserved => ({
  observedGeneration: 0,
  installed: false,
  restarting: false,
  restartPending: false,
  usage: { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 },
  conditions: [],
});

export type WorkflowKind = 'PROVISION' | 'MIGRATE' | 'RESTORE' | 'UPDATE' | 'DELETE';

export interface Workflow {
  kind: WorkflowKind;
  startedAt: string;
  step: string;
}
