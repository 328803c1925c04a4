// Original file: proto/cairn/agent/v1/agent.proto

import type { ConsoleCommandInput as _cairn_agent_v1_ConsoleCommandInput, ConsoleCommand as _cairn_agent_v1_ConsoleCommand } from '../../../cairn/agent/v1/ConsoleCommand.js';
import type { ConsoleSubscribeInput as _cairn_agent_v1_ConsoleSubscribeInput, ConsoleSubscribe as _cairn_agent_v1_ConsoleSubscribe } from '../../../cairn/agent/v1/ConsoleSubscribe.js';
import type { ConsoleUnsubscribeInput as _cairn_agent_v1_ConsoleUnsubscribeInput, ConsoleUnsubscribe as _cairn_agent_v1_ConsoleUnsubscribe } from '../../../cairn/agent/v1/ConsoleUnsubscribe.js';
import type { FileListInput as _cairn_agent_v1_FileListInput, FileList as _cairn_agent_v1_FileList } from '../../../cairn/agent/v1/FileList.js';
import type { FileReadInput as _cairn_agent_v1_FileReadInput, FileRead as _cairn_agent_v1_FileRead } from '../../../cairn/agent/v1/FileRead.js';
import type { FileWriteChunkInput as _cairn_agent_v1_FileWriteChunkInput, FileWriteChunk as _cairn_agent_v1_FileWriteChunk } from '../../../cairn/agent/v1/FileWriteChunk.js';
import type { FileDeleteInput as _cairn_agent_v1_FileDeleteInput, FileDelete as _cairn_agent_v1_FileDelete } from '../../../cairn/agent/v1/FileDelete.js';
import type { FileMkdirInput as _cairn_agent_v1_FileMkdirInput, FileMkdir as _cairn_agent_v1_FileMkdir } from '../../../cairn/agent/v1/FileMkdir.js';
import type { PropertiesGetInput as _cairn_agent_v1_PropertiesGetInput, PropertiesGet as _cairn_agent_v1_PropertiesGet } from '../../../cairn/agent/v1/PropertiesGet.js';
import type { PropertiesPatchInput as _cairn_agent_v1_PropertiesPatchInput, PropertiesPatch as _cairn_agent_v1_PropertiesPatch } from '../../../cairn/agent/v1/PropertiesPatch.js';
import type { SnapshotOpenInput as _cairn_agent_v1_SnapshotOpenInput, SnapshotOpen as _cairn_agent_v1_SnapshotOpen } from '../../../cairn/agent/v1/SnapshotOpen.js';
import type { SnapshotReadInput as _cairn_agent_v1_SnapshotReadInput, SnapshotRead as _cairn_agent_v1_SnapshotRead } from '../../../cairn/agent/v1/SnapshotRead.js';
import type { SnapshotCloseInput as _cairn_agent_v1_SnapshotCloseInput, SnapshotClose as _cairn_agent_v1_SnapshotClose } from '../../../cairn/agent/v1/SnapshotClose.js';
import type { LocalBackupInput as _cairn_agent_v1_LocalBackupInput, LocalBackup as _cairn_agent_v1_LocalBackup } from '../../../cairn/agent/v1/LocalBackup.js';
import type { LocalBackupPruneInput as _cairn_agent_v1_LocalBackupPruneInput, LocalBackupPrune as _cairn_agent_v1_LocalBackupPrune } from '../../../cairn/agent/v1/LocalBackupPrune.js';
import type { StageBeginInput as _cairn_agent_v1_StageBeginInput, StageBegin as _cairn_agent_v1_StageBegin } from '../../../cairn/agent/v1/StageBegin.js';
import type { StageWriteInput as _cairn_agent_v1_StageWriteInput, StageWrite as _cairn_agent_v1_StageWrite } from '../../../cairn/agent/v1/StageWrite.js';
import type { StageRemoveInput as _cairn_agent_v1_StageRemoveInput, StageRemove as _cairn_agent_v1_StageRemove } from '../../../cairn/agent/v1/StageRemove.js';
import type { StageFromLocalInput as _cairn_agent_v1_StageFromLocalInput, StageFromLocal as _cairn_agent_v1_StageFromLocal } from '../../../cairn/agent/v1/StageFromLocal.js';
import type { StageScanInput as _cairn_agent_v1_StageScanInput, StageScan as _cairn_agent_v1_StageScan } from '../../../cairn/agent/v1/StageScan.js';
import type { StageCommitInput as _cairn_agent_v1_StageCommitInput, StageCommit as _cairn_agent_v1_StageCommit } from '../../../cairn/agent/v1/StageCommit.js';
import type { StageAbortInput as _cairn_agent_v1_StageAbortInput, StageAbort as _cairn_agent_v1_StageAbort } from '../../../cairn/agent/v1/StageAbort.js';
import type { StageCommittedInput as _cairn_agent_v1_StageCommittedInput, StageCommitted as _cairn_agent_v1_StageCommitted } from '../../../cairn/agent/v1/StageCommitted.js';
import type { UsageHistoryInput as _cairn_agent_v1_UsageHistoryInput, UsageHistory as _cairn_agent_v1_UsageHistory } from '../../../cairn/agent/v1/UsageHistory.js';
import type { SnapshotUploadInput as _cairn_agent_v1_SnapshotUploadInput, SnapshotUpload as _cairn_agent_v1_SnapshotUpload } from '../../../cairn/agent/v1/SnapshotUpload.js';
import type { StageFetchInput as _cairn_agent_v1_StageFetchInput, StageFetch as _cairn_agent_v1_StageFetch } from '../../../cairn/agent/v1/StageFetch.js';
import type { PrefetchArtifactInput as _cairn_agent_v1_PrefetchArtifactInput, PrefetchArtifact as _cairn_agent_v1_PrefetchArtifact } from '../../../cairn/agent/v1/PrefetchArtifact.js';
import type { FileMoveInput as _cairn_agent_v1_FileMoveInput, FileMove as _cairn_agent_v1_FileMove } from '../../../cairn/agent/v1/FileMove.js';
import type { FileArchiveJobInput as _cairn_agent_v1_FileArchiveJobInput, FileArchiveJob as _cairn_agent_v1_FileArchiveJob } from '../../../cairn/agent/v1/FileArchiveJob.js';
import type { FileArchiveReadInput as _cairn_agent_v1_FileArchiveReadInput, FileArchiveRead as _cairn_agent_v1_FileArchiveRead } from '../../../cairn/agent/v1/FileArchiveRead.js';
import type { UploadBeginInput as _cairn_agent_v1_UploadBeginInput, UploadBegin as _cairn_agent_v1_UploadBegin } from '../../../cairn/agent/v1/UploadBegin.js';
import type { UploadAppendInput as _cairn_agent_v1_UploadAppendInput, UploadAppend as _cairn_agent_v1_UploadAppend } from '../../../cairn/agent/v1/UploadAppend.js';
import type { UploadStatusInput as _cairn_agent_v1_UploadStatusInput, UploadStatus as _cairn_agent_v1_UploadStatus } from '../../../cairn/agent/v1/UploadStatus.js';
import type { UploadCancelInput as _cairn_agent_v1_UploadCancelInput, UploadCancel as _cairn_agent_v1_UploadCancel } from '../../../cairn/agent/v1/UploadCancel.js';
import type { UploadCompleteInput as _cairn_agent_v1_UploadCompleteInput, UploadComplete as _cairn_agent_v1_UploadComplete } from '../../../cairn/agent/v1/UploadComplete.js';
import type { SnapshotServeInput as _cairn_agent_v1_SnapshotServeInput, SnapshotServe as _cairn_agent_v1_SnapshotServe } from '../../../cairn/agent/v1/SnapshotServe.js';
import type { StagePullInput as _cairn_agent_v1_StagePullInput, StagePull as _cairn_agent_v1_StagePull } from '../../../cairn/agent/v1/StagePull.js';
import type { SnapshotHashesInput as _cairn_agent_v1_SnapshotHashesInput, SnapshotHashes as _cairn_agent_v1_SnapshotHashes } from '../../../cairn/agent/v1/SnapshotHashes.js';
import type { Long } from '@grpc/proto-loader';

export interface RequestInput {
  /**
   * Unique per Node session; every Response to it carries the same id.
   */
  'requestId'?: (string);
  /**
   * The Controller gives up at this time (ms since the Unix epoch); work after it is wasted.
   */
  'deadlineUnixMs'?: (number | string | Long);
  /**
   * As DesiredState.lease_term: a request of an older term is refused (STALE_TERM).
   */
  'leaseTerm'?: (number | string | Long);
  'consoleCommand'?: (_cairn_agent_v1_ConsoleCommandInput | null);
  'consoleSubscribe'?: (_cairn_agent_v1_ConsoleSubscribeInput | null);
  'consoleUnsubscribe'?: (_cairn_agent_v1_ConsoleUnsubscribeInput | null);
  'fileList'?: (_cairn_agent_v1_FileListInput | null);
  'fileRead'?: (_cairn_agent_v1_FileReadInput | null);
  'fileWriteChunk'?: (_cairn_agent_v1_FileWriteChunkInput | null);
  'fileDelete'?: (_cairn_agent_v1_FileDeleteInput | null);
  'fileMkdir'?: (_cairn_agent_v1_FileMkdirInput | null);
  'propertiesGet'?: (_cairn_agent_v1_PropertiesGetInput | null);
  'propertiesPatch'?: (_cairn_agent_v1_PropertiesPatchInput | null);
  /**
   * Backups, restores and migrations (see "Snapshots and stages" below). 20 and 21 were the
   * first, never implemented backup and restore requests.
   */
  'snapshotOpen'?: (_cairn_agent_v1_SnapshotOpenInput | null);
  'snapshotRead'?: (_cairn_agent_v1_SnapshotReadInput | null);
  'snapshotClose'?: (_cairn_agent_v1_SnapshotCloseInput | null);
  'localBackup'?: (_cairn_agent_v1_LocalBackupInput | null);
  'localBackupPrune'?: (_cairn_agent_v1_LocalBackupPruneInput | null);
  'stageBegin'?: (_cairn_agent_v1_StageBeginInput | null);
  'stageWrite'?: (_cairn_agent_v1_StageWriteInput | null);
  'stageRemove'?: (_cairn_agent_v1_StageRemoveInput | null);
  'stageFromLocal'?: (_cairn_agent_v1_StageFromLocalInput | null);
  'stageScan'?: (_cairn_agent_v1_StageScanInput | null);
  'stageCommit'?: (_cairn_agent_v1_StageCommitInput | null);
  'stageAbort'?: (_cairn_agent_v1_StageAbortInput | null);
  'stageCommitted'?: (_cairn_agent_v1_StageCommittedInput | null);
  'usageHistory'?: (_cairn_agent_v1_UsageHistoryInput | null);
  'snapshotUpload'?: (_cairn_agent_v1_SnapshotUploadInput | null);
  'stageFetch'?: (_cairn_agent_v1_StageFetchInput | null);
  'prefetchArtifact'?: (_cairn_agent_v1_PrefetchArtifactInput | null);
  'fileMove'?: (_cairn_agent_v1_FileMoveInput | null);
  'fileArchiveJob'?: (_cairn_agent_v1_FileArchiveJobInput | null);
  'fileArchiveRead'?: (_cairn_agent_v1_FileArchiveReadInput | null);
  'uploadBegin'?: (_cairn_agent_v1_UploadBeginInput | null);
  'uploadAppend'?: (_cairn_agent_v1_UploadAppendInput | null);
  'uploadStatus'?: (_cairn_agent_v1_UploadStatusInput | null);
  'uploadCancel'?: (_cairn_agent_v1_UploadCancelInput | null);
  'uploadComplete'?: (_cairn_agent_v1_UploadCompleteInput | null);
  /**
   * Migrations Agent to Agent (see "Snapshots and stages" below).
   */
  'snapshotServe'?: (_cairn_agent_v1_SnapshotServeInput | null);
  'stagePull'?: (_cairn_agent_v1_StagePullInput | null);
  'snapshotHashes'?: (_cairn_agent_v1_SnapshotHashesInput | null);
  'body'?: "consoleCommand"|"consoleSubscribe"|"consoleUnsubscribe"|"fileList"|"fileRead"|"fileWriteChunk"|"fileDelete"|"fileMkdir"|"propertiesGet"|"propertiesPatch"|"snapshotOpen"|"snapshotRead"|"snapshotClose"|"localBackup"|"localBackupPrune"|"stageBegin"|"stageWrite"|"stageRemove"|"stageFromLocal"|"stageScan"|"stageCommit"|"stageAbort"|"stageCommitted"|"usageHistory"|"snapshotUpload"|"stageFetch"|"prefetchArtifact"|"fileMove"|"fileArchiveJob"|"fileArchiveRead"|"uploadBegin"|"uploadAppend"|"uploadStatus"|"uploadCancel"|"uploadComplete"|"snapshotServe"|"stagePull"|"snapshotHashes";
}

export interface Request {
  /**
   * Unique per Node session; every Response to it carries the same id.
   */
  'requestId': (string);
  /**
   * The Controller gives up at this time (ms since the Unix epoch); work after it is wasted.
   */
  'deadlineUnixMs': (number);
  /**
   * As DesiredState.lease_term: a request of an older term is refused (STALE_TERM).
   */
  'leaseTerm': (number);
  'consoleCommand'?: (_cairn_agent_v1_ConsoleCommand | null);
  'consoleSubscribe'?: (_cairn_agent_v1_ConsoleSubscribe | null);
  'consoleUnsubscribe'?: (_cairn_agent_v1_ConsoleUnsubscribe | null);
  'fileList'?: (_cairn_agent_v1_FileList | null);
  'fileRead'?: (_cairn_agent_v1_FileRead | null);
  'fileWriteChunk'?: (_cairn_agent_v1_FileWriteChunk | null);
  'fileDelete'?: (_cairn_agent_v1_FileDelete | null);
  'fileMkdir'?: (_cairn_agent_v1_FileMkdir | null);
  'propertiesGet'?: (_cairn_agent_v1_PropertiesGet | null);
  'propertiesPatch'?: (_cairn_agent_v1_PropertiesPatch | null);
  /**
   * Backups, restores and migrations (see "Snapshots and stages" below). 20 and 21 were the
   * first, never implemented backup and restore requests.
   */
  'snapshotOpen'?: (_cairn_agent_v1_SnapshotOpen | null);
  'snapshotRead'?: (_cairn_agent_v1_SnapshotRead | null);
  'snapshotClose'?: (_cairn_agent_v1_SnapshotClose | null);
  'localBackup'?: (_cairn_agent_v1_LocalBackup | null);
  'localBackupPrune'?: (_cairn_agent_v1_LocalBackupPrune | null);
  'stageBegin'?: (_cairn_agent_v1_StageBegin | null);
  'stageWrite'?: (_cairn_agent_v1_StageWrite | null);
  'stageRemove'?: (_cairn_agent_v1_StageRemove | null);
  'stageFromLocal'?: (_cairn_agent_v1_StageFromLocal | null);
  'stageScan'?: (_cairn_agent_v1_StageScan | null);
  'stageCommit'?: (_cairn_agent_v1_StageCommit | null);
  'stageAbort'?: (_cairn_agent_v1_StageAbort | null);
  'stageCommitted'?: (_cairn_agent_v1_StageCommitted | null);
  'usageHistory'?: (_cairn_agent_v1_UsageHistory | null);
  'snapshotUpload'?: (_cairn_agent_v1_SnapshotUpload | null);
  'stageFetch'?: (_cairn_agent_v1_StageFetch | null);
  'prefetchArtifact'?: (_cairn_agent_v1_PrefetchArtifact | null);
  'fileMove'?: (_cairn_agent_v1_FileMove | null);
  'fileArchiveJob'?: (_cairn_agent_v1_FileArchiveJob | null);
  'fileArchiveRead'?: (_cairn_agent_v1_FileArchiveRead | null);
  'uploadBegin'?: (_cairn_agent_v1_UploadBegin | null);
  'uploadAppend'?: (_cairn_agent_v1_UploadAppend | null);
  'uploadStatus'?: (_cairn_agent_v1_UploadStatus | null);
  'uploadCancel'?: (_cairn_agent_v1_UploadCancel | null);
  'uploadComplete'?: (_cairn_agent_v1_UploadComplete | null);
  /**
   * Migrations Agent to Agent (see "Snapshots and stages" below).
   */
  'snapshotServe'?: (_cairn_agent_v1_SnapshotServe | null);
  'stagePull'?: (_cairn_agent_v1_StagePull | null);
  'snapshotHashes'?: (_cairn_agent_v1_SnapshotHashes | null);
  'body'?: "consoleCommand"|"consoleSubscribe"|"consoleUnsubscribe"|"fileList"|"fileRead"|"fileWriteChunk"|"fileDelete"|"fileMkdir"|"propertiesGet"|"propertiesPatch"|"snapshotOpen"|"snapshotRead"|"snapshotClose"|"localBackup"|"localBackupPrune"|"stageBegin"|"stageWrite"|"stageRemove"|"stageFromLocal"|"stageScan"|"stageCommit"|"stageAbort"|"stageCommitted"|"usageHistory"|"snapshotUpload"|"stageFetch"|"prefetchArtifact"|"fileMove"|"fileArchiveJob"|"fileArchiveRead"|"uploadBegin"|"uploadAppend"|"uploadStatus"|"uploadCancel"|"uploadComplete"|"snapshotServe"|"stagePull"|"snapshotHashes";
}
