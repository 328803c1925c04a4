// Original file: proto/cairn/agent/v1/agent.proto

import type { ResponseErrorInput as _cairn_agent_v1_ResponseErrorInput, ResponseError as _cairn_agent_v1_ResponseError } from '../../../cairn/agent/v1/ResponseError.js';
import type { FileEntriesInput as _cairn_agent_v1_FileEntriesInput, FileEntries as _cairn_agent_v1_FileEntries } from '../../../cairn/agent/v1/FileEntries.js';
import type { FileChunkInput as _cairn_agent_v1_FileChunkInput, FileChunk as _cairn_agent_v1_FileChunk } from '../../../cairn/agent/v1/FileChunk.js';
import type { PropertiesInput as _cairn_agent_v1_PropertiesInput, Properties as _cairn_agent_v1_Properties } from '../../../cairn/agent/v1/Properties.js';
import type { BackupResultInput as _cairn_agent_v1_BackupResultInput, BackupResult as _cairn_agent_v1_BackupResult } from '../../../cairn/agent/v1/BackupResult.js';
import type { ConsoleReplayInput as _cairn_agent_v1_ConsoleReplayInput, ConsoleReplay as _cairn_agent_v1_ConsoleReplay } from '../../../cairn/agent/v1/ConsoleReplay.js';
import type { SnapshotManifestInput as _cairn_agent_v1_SnapshotManifestInput, SnapshotManifest as _cairn_agent_v1_SnapshotManifest } from '../../../cairn/agent/v1/SnapshotManifest.js';
import type { StageCommitStateInput as _cairn_agent_v1_StageCommitStateInput, StageCommitState as _cairn_agent_v1_StageCommitState } from '../../../cairn/agent/v1/StageCommitState.js';
import type { UsageSamplesInput as _cairn_agent_v1_UsageSamplesInput, UsageSamples as _cairn_agent_v1_UsageSamples } from '../../../cairn/agent/v1/UsageSamples.js';
import type { ObjectUploadedInput as _cairn_agent_v1_ObjectUploadedInput, ObjectUploaded as _cairn_agent_v1_ObjectUploaded } from '../../../cairn/agent/v1/ObjectUploaded.js';
import type { ArchiveProgressInput as _cairn_agent_v1_ArchiveProgressInput, ArchiveProgress as _cairn_agent_v1_ArchiveProgress } from '../../../cairn/agent/v1/ArchiveProgress.js';
import type { UploadStateInput as _cairn_agent_v1_UploadStateInput, UploadState as _cairn_agent_v1_UploadState } from '../../../cairn/agent/v1/UploadState.js';
import type { SnapshotServingInput as _cairn_agent_v1_SnapshotServingInput, SnapshotServing as _cairn_agent_v1_SnapshotServing } from '../../../cairn/agent/v1/SnapshotServing.js';
import type { StagePulledInput as _cairn_agent_v1_StagePulledInput, StagePulled as _cairn_agent_v1_StagePulled } from '../../../cairn/agent/v1/StagePulled.js';

export interface ResponseInput {
  /**
   * The id of the Request this answers.
   */
  'requestId'?: (string);
  /**
   * True when the request succeeded; false means `error` says why.
   */
  'ok'?: (boolean);
  /**
   * Set when ok is false.
   */
  'error'?: (_cairn_agent_v1_ResponseErrorInput | null);
  /**
   * True when more Responses for the same request follow (chunked reads).
   */
  'more'?: (boolean);
  'fileEntries'?: (_cairn_agent_v1_FileEntriesInput | null);
  'fileChunk'?: (_cairn_agent_v1_FileChunkInput | null);
  'properties'?: (_cairn_agent_v1_PropertiesInput | null);
  'backupResult'?: (_cairn_agent_v1_BackupResultInput | null);
  'consoleReplay'?: (_cairn_agent_v1_ConsoleReplayInput | null);
  'snapshotManifest'?: (_cairn_agent_v1_SnapshotManifestInput | null);
  'stageCommitState'?: (_cairn_agent_v1_StageCommitStateInput | null);
  'usageSamples'?: (_cairn_agent_v1_UsageSamplesInput | null);
  'objectUploaded'?: (_cairn_agent_v1_ObjectUploadedInput | null);
  'archiveProgress'?: (_cairn_agent_v1_ArchiveProgressInput | null);
  'uploadState'?: (_cairn_agent_v1_UploadStateInput | null);
  'snapshotServing'?: (_cairn_agent_v1_SnapshotServingInput | null);
  'stagePulled'?: (_cairn_agent_v1_StagePulledInput | null);
  'payload'?: "fileEntries"|"fileChunk"|"properties"|"backupResult"|"snapshotManifest"|"consoleReplay"|"stageCommitState"|"usageSamples"|"objectUploaded"|"archiveProgress"|"uploadState"|"snapshotServing"|"stagePulled";
}

export interface Response {
  /**
   * The id of the Request this answers.
   */
  'requestId': (string);
  /**
   * True when the request succeeded; false means `error` says why.
   */
  'ok': (boolean);
  /**
   * Set when ok is false.
   */
  'error': (_cairn_agent_v1_ResponseError | null);
  /**
   * True when more Responses for the same request follow (chunked reads).
   */
  'more': (boolean);
  'fileEntries'?: (_cairn_agent_v1_FileEntries | null);
  'fileChunk'?: (_cairn_agent_v1_FileChunk | null);
  'properties'?: (_cairn_agent_v1_Properties | null);
  'backupResult'?: (_cairn_agent_v1_BackupResult | null);
  'consoleReplay'?: (_cairn_agent_v1_ConsoleReplay | null);
  'snapshotManifest'?: (_cairn_agent_v1_SnapshotManifest | null);
  'stageCommitState'?: (_cairn_agent_v1_StageCommitState | null);
  'usageSamples'?: (_cairn_agent_v1_UsageSamples | null);
  'objectUploaded'?: (_cairn_agent_v1_ObjectUploaded | null);
  'archiveProgress'?: (_cairn_agent_v1_ArchiveProgress | null);
  'uploadState'?: (_cairn_agent_v1_UploadState | null);
  'snapshotServing'?: (_cairn_agent_v1_SnapshotServing | null);
  'stagePulled'?: (_cairn_agent_v1_StagePulled | null);
  'payload'?: "fileEntries"|"fileChunk"|"properties"|"backupResult"|"snapshotManifest"|"consoleReplay"|"stageCommitState"|"usageSamples"|"objectUploaded"|"archiveProgress"|"uploadState"|"snapshotServing"|"stagePulled";
}
