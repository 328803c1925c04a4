import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AgentLinkClient as _cairn_agent_v1_AgentLinkClient, AgentLinkDefinition as _cairn_agent_v1_AgentLinkDefinition } from './cairn/agent/v1/AgentLink.js';
import type { AgentMessageInput as _cairn_agent_v1_AgentMessageInput, AgentMessage as _cairn_agent_v1_AgentMessage } from './cairn/agent/v1/AgentMessage.js';
import type { ArchiveProgressInput as _cairn_agent_v1_ArchiveProgressInput, ArchiveProgress as _cairn_agent_v1_ArchiveProgress } from './cairn/agent/v1/ArchiveProgress.js';
import type { ArtifactChunkInput as _cairn_agent_v1_ArtifactChunkInput, ArtifactChunk as _cairn_agent_v1_ArtifactChunk } from './cairn/agent/v1/ArtifactChunk.js';
import type { BackupResultInput as _cairn_agent_v1_BackupResultInput, BackupResult as _cairn_agent_v1_BackupResult } from './cairn/agent/v1/BackupResult.js';
import type { ConditionInput as _cairn_agent_v1_ConditionInput, Condition as _cairn_agent_v1_Condition } from './cairn/agent/v1/Condition.js';
import type { ConsoleCommandInput as _cairn_agent_v1_ConsoleCommandInput, ConsoleCommand as _cairn_agent_v1_ConsoleCommand } from './cairn/agent/v1/ConsoleCommand.js';
import type { ConsoleEndInput as _cairn_agent_v1_ConsoleEndInput, ConsoleEnd as _cairn_agent_v1_ConsoleEnd } from './cairn/agent/v1/ConsoleEnd.js';
import type { ConsoleLineInput as _cairn_agent_v1_ConsoleLineInput, ConsoleLine as _cairn_agent_v1_ConsoleLine } from './cairn/agent/v1/ConsoleLine.js';
import type { ConsoleReplayInput as _cairn_agent_v1_ConsoleReplayInput, ConsoleReplay as _cairn_agent_v1_ConsoleReplay } from './cairn/agent/v1/ConsoleReplay.js';
import type { ConsoleSubscribeInput as _cairn_agent_v1_ConsoleSubscribeInput, ConsoleSubscribe as _cairn_agent_v1_ConsoleSubscribe } from './cairn/agent/v1/ConsoleSubscribe.js';
import type { ConsoleUnsubscribeInput as _cairn_agent_v1_ConsoleUnsubscribeInput, ConsoleUnsubscribe as _cairn_agent_v1_ConsoleUnsubscribe } from './cairn/agent/v1/ConsoleUnsubscribe.js';
import type { ControllerMessageInput as _cairn_agent_v1_ControllerMessageInput, ControllerMessage as _cairn_agent_v1_ControllerMessage } from './cairn/agent/v1/ControllerMessage.js';
import type { DesiredPluginInput as _cairn_agent_v1_DesiredPluginInput, DesiredPlugin as _cairn_agent_v1_DesiredPlugin } from './cairn/agent/v1/DesiredPlugin.js';
import type { DesiredServerInput as _cairn_agent_v1_DesiredServerInput, DesiredServer as _cairn_agent_v1_DesiredServer } from './cairn/agent/v1/DesiredServer.js';
import type { DesiredServerChangeInput as _cairn_agent_v1_DesiredServerChangeInput, DesiredServerChange as _cairn_agent_v1_DesiredServerChange } from './cairn/agent/v1/DesiredServerChange.js';
import type { DesiredStateInput as _cairn_agent_v1_DesiredStateInput, DesiredState as _cairn_agent_v1_DesiredState } from './cairn/agent/v1/DesiredState.js';
import type { EnrollRequestInput as _cairn_agent_v1_EnrollRequestInput, EnrollRequest as _cairn_agent_v1_EnrollRequest } from './cairn/agent/v1/EnrollRequest.js';
import type { EnrollResponseInput as _cairn_agent_v1_EnrollResponseInput, EnrollResponse as _cairn_agent_v1_EnrollResponse } from './cairn/agent/v1/EnrollResponse.js';
import type { FetchArtifactRequestInput as _cairn_agent_v1_FetchArtifactRequestInput, FetchArtifactRequest as _cairn_agent_v1_FetchArtifactRequest } from './cairn/agent/v1/FetchArtifactRequest.js';
import type { FileArchiveJobInput as _cairn_agent_v1_FileArchiveJobInput, FileArchiveJob as _cairn_agent_v1_FileArchiveJob } from './cairn/agent/v1/FileArchiveJob.js';
import type { FileArchiveReadInput as _cairn_agent_v1_FileArchiveReadInput, FileArchiveRead as _cairn_agent_v1_FileArchiveRead } from './cairn/agent/v1/FileArchiveRead.js';
import type { FileChunkInput as _cairn_agent_v1_FileChunkInput, FileChunk as _cairn_agent_v1_FileChunk } from './cairn/agent/v1/FileChunk.js';
import type { FileDeleteInput as _cairn_agent_v1_FileDeleteInput, FileDelete as _cairn_agent_v1_FileDelete } from './cairn/agent/v1/FileDelete.js';
import type { FileEntriesInput as _cairn_agent_v1_FileEntriesInput, FileEntries as _cairn_agent_v1_FileEntries } from './cairn/agent/v1/FileEntries.js';
import type { FileEntryInput as _cairn_agent_v1_FileEntryInput, FileEntry as _cairn_agent_v1_FileEntry } from './cairn/agent/v1/FileEntry.js';
import type { FileHashInput as _cairn_agent_v1_FileHashInput, FileHash as _cairn_agent_v1_FileHash } from './cairn/agent/v1/FileHash.js';
import type { FileListInput as _cairn_agent_v1_FileListInput, FileList as _cairn_agent_v1_FileList } from './cairn/agent/v1/FileList.js';
import type { FileMkdirInput as _cairn_agent_v1_FileMkdirInput, FileMkdir as _cairn_agent_v1_FileMkdir } from './cairn/agent/v1/FileMkdir.js';
import type { FileMoveInput as _cairn_agent_v1_FileMoveInput, FileMove as _cairn_agent_v1_FileMove } from './cairn/agent/v1/FileMove.js';
import type { FileReadInput as _cairn_agent_v1_FileReadInput, FileRead as _cairn_agent_v1_FileRead } from './cairn/agent/v1/FileRead.js';
import type { FileWriteChunkInput as _cairn_agent_v1_FileWriteChunkInput, FileWriteChunk as _cairn_agent_v1_FileWriteChunk } from './cairn/agent/v1/FileWriteChunk.js';
import type { HeartbeatInput as _cairn_agent_v1_HeartbeatInput, Heartbeat as _cairn_agent_v1_Heartbeat } from './cairn/agent/v1/Heartbeat.js';
import type { HelloInput as _cairn_agent_v1_HelloInput, Hello as _cairn_agent_v1_Hello } from './cairn/agent/v1/Hello.js';
import type { HostFactsInput as _cairn_agent_v1_HostFactsInput, HostFacts as _cairn_agent_v1_HostFacts } from './cairn/agent/v1/HostFacts.js';
import type { IsolationInput as _cairn_agent_v1_IsolationInput, Isolation as _cairn_agent_v1_Isolation } from './cairn/agent/v1/Isolation.js';
import type { KeepaliveInput as _cairn_agent_v1_KeepaliveInput, Keepalive as _cairn_agent_v1_Keepalive } from './cairn/agent/v1/Keepalive.js';
import type { LastCrashInput as _cairn_agent_v1_LastCrashInput, LastCrash as _cairn_agent_v1_LastCrash } from './cairn/agent/v1/LastCrash.js';
import type { LocalBackupInput as _cairn_agent_v1_LocalBackupInput, LocalBackup as _cairn_agent_v1_LocalBackup } from './cairn/agent/v1/LocalBackup.js';
import type { LocalBackupPruneInput as _cairn_agent_v1_LocalBackupPruneInput, LocalBackupPrune as _cairn_agent_v1_LocalBackupPrune } from './cairn/agent/v1/LocalBackupPrune.js';
import type { ManifestEntryInput as _cairn_agent_v1_ManifestEntryInput, ManifestEntry as _cairn_agent_v1_ManifestEntry } from './cairn/agent/v1/ManifestEntry.js';
import type { NetworkRouteInput as _cairn_agent_v1_NetworkRouteInput, NetworkRoute as _cairn_agent_v1_NetworkRoute } from './cairn/agent/v1/NetworkRoute.js';
import type { ObjectUploadedInput as _cairn_agent_v1_ObjectUploadedInput, ObjectUploaded as _cairn_agent_v1_ObjectUploaded } from './cairn/agent/v1/ObjectUploaded.js';
import type { PlayersInput as _cairn_agent_v1_PlayersInput, Players as _cairn_agent_v1_Players } from './cairn/agent/v1/Players.js';
import type { PortBindingInput as _cairn_agent_v1_PortBindingInput, PortBinding as _cairn_agent_v1_PortBinding } from './cairn/agent/v1/PortBinding.js';
import type { PortRangeInput as _cairn_agent_v1_PortRangeInput, PortRange as _cairn_agent_v1_PortRange } from './cairn/agent/v1/PortRange.js';
import type { PrefetchArtifactInput as _cairn_agent_v1_PrefetchArtifactInput, PrefetchArtifact as _cairn_agent_v1_PrefetchArtifact } from './cairn/agent/v1/PrefetchArtifact.js';
import type { PropertiesInput as _cairn_agent_v1_PropertiesInput, Properties as _cairn_agent_v1_Properties } from './cairn/agent/v1/Properties.js';
import type { PropertiesGetInput as _cairn_agent_v1_PropertiesGetInput, PropertiesGet as _cairn_agent_v1_PropertiesGet } from './cairn/agent/v1/PropertiesGet.js';
import type { PropertiesPatchInput as _cairn_agent_v1_PropertiesPatchInput, PropertiesPatch as _cairn_agent_v1_PropertiesPatch } from './cairn/agent/v1/PropertiesPatch.js';
import type { PullFileInput as _cairn_agent_v1_PullFileInput, PullFile as _cairn_agent_v1_PullFile } from './cairn/agent/v1/PullFile.js';
import type { RequestInput as _cairn_agent_v1_RequestInput, Request as _cairn_agent_v1_Request } from './cairn/agent/v1/Request.js';
import type { RequestFullStateInput as _cairn_agent_v1_RequestFullStateInput, RequestFullState as _cairn_agent_v1_RequestFullState } from './cairn/agent/v1/RequestFullState.js';
import type { ResourcesInput as _cairn_agent_v1_ResourcesInput, Resources as _cairn_agent_v1_Resources } from './cairn/agent/v1/Resources.js';
import type { ResponseInput as _cairn_agent_v1_ResponseInput, Response as _cairn_agent_v1_Response } from './cairn/agent/v1/Response.js';
import type { ResponseErrorInput as _cairn_agent_v1_ResponseErrorInput, ResponseError as _cairn_agent_v1_ResponseError } from './cairn/agent/v1/ResponseError.js';
import type { RestartPolicyInput as _cairn_agent_v1_RestartPolicyInput, RestartPolicy as _cairn_agent_v1_RestartPolicy } from './cairn/agent/v1/RestartPolicy.js';
import type { RuntimeInput as _cairn_agent_v1_RuntimeInput, Runtime as _cairn_agent_v1_Runtime } from './cairn/agent/v1/Runtime.js';
import type { ServerNetworkInput as _cairn_agent_v1_ServerNetworkInput, ServerNetwork as _cairn_agent_v1_ServerNetwork } from './cairn/agent/v1/ServerNetwork.js';
import type { ServerResourcesInput as _cairn_agent_v1_ServerResourcesInput, ServerResources as _cairn_agent_v1_ServerResources } from './cairn/agent/v1/ServerResources.js';
import type { ServerStatusInput as _cairn_agent_v1_ServerStatusInput, ServerStatus as _cairn_agent_v1_ServerStatus } from './cairn/agent/v1/ServerStatus.js';
import type { SleepPolicyInput as _cairn_agent_v1_SleepPolicyInput, SleepPolicy as _cairn_agent_v1_SleepPolicy } from './cairn/agent/v1/SleepPolicy.js';
import type { SleepingInput as _cairn_agent_v1_SleepingInput, Sleeping as _cairn_agent_v1_Sleeping } from './cairn/agent/v1/Sleeping.js';
import type { SnapshotCloseInput as _cairn_agent_v1_SnapshotCloseInput, SnapshotClose as _cairn_agent_v1_SnapshotClose } from './cairn/agent/v1/SnapshotClose.js';
import type { SnapshotHashesInput as _cairn_agent_v1_SnapshotHashesInput, SnapshotHashes as _cairn_agent_v1_SnapshotHashes } from './cairn/agent/v1/SnapshotHashes.js';
import type { SnapshotManifestInput as _cairn_agent_v1_SnapshotManifestInput, SnapshotManifest as _cairn_agent_v1_SnapshotManifest } from './cairn/agent/v1/SnapshotManifest.js';
import type { SnapshotOpenInput as _cairn_agent_v1_SnapshotOpenInput, SnapshotOpen as _cairn_agent_v1_SnapshotOpen } from './cairn/agent/v1/SnapshotOpen.js';
import type { SnapshotReadInput as _cairn_agent_v1_SnapshotReadInput, SnapshotRead as _cairn_agent_v1_SnapshotRead } from './cairn/agent/v1/SnapshotRead.js';
import type { SnapshotServeInput as _cairn_agent_v1_SnapshotServeInput, SnapshotServe as _cairn_agent_v1_SnapshotServe } from './cairn/agent/v1/SnapshotServe.js';
import type { SnapshotServingInput as _cairn_agent_v1_SnapshotServingInput, SnapshotServing as _cairn_agent_v1_SnapshotServing } from './cairn/agent/v1/SnapshotServing.js';
import type { SnapshotUploadInput as _cairn_agent_v1_SnapshotUploadInput, SnapshotUpload as _cairn_agent_v1_SnapshotUpload } from './cairn/agent/v1/SnapshotUpload.js';
import type { SoftwareInput as _cairn_agent_v1_SoftwareInput, Software as _cairn_agent_v1_Software } from './cairn/agent/v1/Software.js';
import type { StageAbortInput as _cairn_agent_v1_StageAbortInput, StageAbort as _cairn_agent_v1_StageAbort } from './cairn/agent/v1/StageAbort.js';
import type { StageBeginInput as _cairn_agent_v1_StageBeginInput, StageBegin as _cairn_agent_v1_StageBegin } from './cairn/agent/v1/StageBegin.js';
import type { StageCommitInput as _cairn_agent_v1_StageCommitInput, StageCommit as _cairn_agent_v1_StageCommit } from './cairn/agent/v1/StageCommit.js';
import type { StageCommitStateInput as _cairn_agent_v1_StageCommitStateInput, StageCommitState as _cairn_agent_v1_StageCommitState } from './cairn/agent/v1/StageCommitState.js';
import type { StageCommittedInput as _cairn_agent_v1_StageCommittedInput, StageCommitted as _cairn_agent_v1_StageCommitted } from './cairn/agent/v1/StageCommitted.js';
import type { StageFetchInput as _cairn_agent_v1_StageFetchInput, StageFetch as _cairn_agent_v1_StageFetch } from './cairn/agent/v1/StageFetch.js';
import type { StageFromLocalInput as _cairn_agent_v1_StageFromLocalInput, StageFromLocal as _cairn_agent_v1_StageFromLocal } from './cairn/agent/v1/StageFromLocal.js';
import type { StagePullInput as _cairn_agent_v1_StagePullInput, StagePull as _cairn_agent_v1_StagePull } from './cairn/agent/v1/StagePull.js';
import type { StagePulledInput as _cairn_agent_v1_StagePulledInput, StagePulled as _cairn_agent_v1_StagePulled } from './cairn/agent/v1/StagePulled.js';
import type { StageRemoveInput as _cairn_agent_v1_StageRemoveInput, StageRemove as _cairn_agent_v1_StageRemove } from './cairn/agent/v1/StageRemove.js';
import type { StageScanInput as _cairn_agent_v1_StageScanInput, StageScan as _cairn_agent_v1_StageScan } from './cairn/agent/v1/StageScan.js';
import type { StageWriteInput as _cairn_agent_v1_StageWriteInput, StageWrite as _cairn_agent_v1_StageWrite } from './cairn/agent/v1/StageWrite.js';
import type { UploadAppendInput as _cairn_agent_v1_UploadAppendInput, UploadAppend as _cairn_agent_v1_UploadAppend } from './cairn/agent/v1/UploadAppend.js';
import type { UploadBeginInput as _cairn_agent_v1_UploadBeginInput, UploadBegin as _cairn_agent_v1_UploadBegin } from './cairn/agent/v1/UploadBegin.js';
import type { UploadCancelInput as _cairn_agent_v1_UploadCancelInput, UploadCancel as _cairn_agent_v1_UploadCancel } from './cairn/agent/v1/UploadCancel.js';
import type { UploadCompleteInput as _cairn_agent_v1_UploadCompleteInput, UploadComplete as _cairn_agent_v1_UploadComplete } from './cairn/agent/v1/UploadComplete.js';
import type { UploadStateInput as _cairn_agent_v1_UploadStateInput, UploadState as _cairn_agent_v1_UploadState } from './cairn/agent/v1/UploadState.js';
import type { UploadStatusInput as _cairn_agent_v1_UploadStatusInput, UploadStatus as _cairn_agent_v1_UploadStatus } from './cairn/agent/v1/UploadStatus.js';
import type { UsageHistoryInput as _cairn_agent_v1_UsageHistoryInput, UsageHistory as _cairn_agent_v1_UsageHistory } from './cairn/agent/v1/UsageHistory.js';
import type { UsageSampleInput as _cairn_agent_v1_UsageSampleInput, UsageSample as _cairn_agent_v1_UsageSample } from './cairn/agent/v1/UsageSample.js';
import type { UsageSamplesInput as _cairn_agent_v1_UsageSamplesInput, UsageSamples as _cairn_agent_v1_UsageSamples } from './cairn/agent/v1/UsageSamples.js';
import type { WakeInput as _cairn_agent_v1_WakeInput, Wake as _cairn_agent_v1_Wake } from './cairn/agent/v1/Wake.js';
import type { WelcomeInput as _cairn_agent_v1_WelcomeInput, Welcome as _cairn_agent_v1_Welcome } from './cairn/agent/v1/Welcome.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  cairn: {
    agent: {
      v1: {
        AgentLink: SubtypeConstructor<typeof grpc.Client, _cairn_agent_v1_AgentLinkClient> & { service: _cairn_agent_v1_AgentLinkDefinition }
        AgentMessage: MessageTypeDefinition<_cairn_agent_v1_AgentMessageInput, _cairn_agent_v1_AgentMessage>
        ArchiveProgress: MessageTypeDefinition<_cairn_agent_v1_ArchiveProgressInput, _cairn_agent_v1_ArchiveProgress>
        ArtifactChunk: MessageTypeDefinition<_cairn_agent_v1_ArtifactChunkInput, _cairn_agent_v1_ArtifactChunk>
        BackupResult: MessageTypeDefinition<_cairn_agent_v1_BackupResultInput, _cairn_agent_v1_BackupResult>
        Condition: MessageTypeDefinition<_cairn_agent_v1_ConditionInput, _cairn_agent_v1_Condition>
        ConsoleCommand: MessageTypeDefinition<_cairn_agent_v1_ConsoleCommandInput, _cairn_agent_v1_ConsoleCommand>
        ConsoleEnd: MessageTypeDefinition<_cairn_agent_v1_ConsoleEndInput, _cairn_agent_v1_ConsoleEnd>
        ConsoleLine: MessageTypeDefinition<_cairn_agent_v1_ConsoleLineInput, _cairn_agent_v1_ConsoleLine>
        ConsoleReplay: MessageTypeDefinition<_cairn_agent_v1_ConsoleReplayInput, _cairn_agent_v1_ConsoleReplay>
        ConsoleSubscribe: MessageTypeDefinition<_cairn_agent_v1_ConsoleSubscribeInput, _cairn_agent_v1_ConsoleSubscribe>
        ConsoleUnsubscribe: MessageTypeDefinition<_cairn_agent_v1_ConsoleUnsubscribeInput, _cairn_agent_v1_ConsoleUnsubscribe>
        ControllerMessage: MessageTypeDefinition<_cairn_agent_v1_ControllerMessageInput, _cairn_agent_v1_ControllerMessage>
        DesiredPlugin: MessageTypeDefinition<_cairn_agent_v1_DesiredPluginInput, _cairn_agent_v1_DesiredPlugin>
        DesiredRuntimeState: EnumTypeDefinition
        DesiredServer: MessageTypeDefinition<_cairn_agent_v1_DesiredServerInput, _cairn_agent_v1_DesiredServer>
        DesiredServerChange: MessageTypeDefinition<_cairn_agent_v1_DesiredServerChangeInput, _cairn_agent_v1_DesiredServerChange>
        DesiredState: MessageTypeDefinition<_cairn_agent_v1_DesiredStateInput, _cairn_agent_v1_DesiredState>
        EnrollRequest: MessageTypeDefinition<_cairn_agent_v1_EnrollRequestInput, _cairn_agent_v1_EnrollRequest>
        EnrollResponse: MessageTypeDefinition<_cairn_agent_v1_EnrollResponseInput, _cairn_agent_v1_EnrollResponse>
        FetchArtifactRequest: MessageTypeDefinition<_cairn_agent_v1_FetchArtifactRequestInput, _cairn_agent_v1_FetchArtifactRequest>
        FileArchiveJob: MessageTypeDefinition<_cairn_agent_v1_FileArchiveJobInput, _cairn_agent_v1_FileArchiveJob>
        FileArchiveRead: MessageTypeDefinition<_cairn_agent_v1_FileArchiveReadInput, _cairn_agent_v1_FileArchiveRead>
        FileChunk: MessageTypeDefinition<_cairn_agent_v1_FileChunkInput, _cairn_agent_v1_FileChunk>
        FileDelete: MessageTypeDefinition<_cairn_agent_v1_FileDeleteInput, _cairn_agent_v1_FileDelete>
        FileEntries: MessageTypeDefinition<_cairn_agent_v1_FileEntriesInput, _cairn_agent_v1_FileEntries>
        FileEntry: MessageTypeDefinition<_cairn_agent_v1_FileEntryInput, _cairn_agent_v1_FileEntry>
        FileHash: MessageTypeDefinition<_cairn_agent_v1_FileHashInput, _cairn_agent_v1_FileHash>
        FileList: MessageTypeDefinition<_cairn_agent_v1_FileListInput, _cairn_agent_v1_FileList>
        FileMkdir: MessageTypeDefinition<_cairn_agent_v1_FileMkdirInput, _cairn_agent_v1_FileMkdir>
        FileMove: MessageTypeDefinition<_cairn_agent_v1_FileMoveInput, _cairn_agent_v1_FileMove>
        FileRead: MessageTypeDefinition<_cairn_agent_v1_FileReadInput, _cairn_agent_v1_FileRead>
        FileWriteChunk: MessageTypeDefinition<_cairn_agent_v1_FileWriteChunkInput, _cairn_agent_v1_FileWriteChunk>
        Heartbeat: MessageTypeDefinition<_cairn_agent_v1_HeartbeatInput, _cairn_agent_v1_Heartbeat>
        Hello: MessageTypeDefinition<_cairn_agent_v1_HelloInput, _cairn_agent_v1_Hello>
        HostFacts: MessageTypeDefinition<_cairn_agent_v1_HostFactsInput, _cairn_agent_v1_HostFacts>
        Isolation: MessageTypeDefinition<_cairn_agent_v1_IsolationInput, _cairn_agent_v1_Isolation>
        Keepalive: MessageTypeDefinition<_cairn_agent_v1_KeepaliveInput, _cairn_agent_v1_Keepalive>
        LastCrash: MessageTypeDefinition<_cairn_agent_v1_LastCrashInput, _cairn_agent_v1_LastCrash>
        LocalBackup: MessageTypeDefinition<_cairn_agent_v1_LocalBackupInput, _cairn_agent_v1_LocalBackup>
        LocalBackupPrune: MessageTypeDefinition<_cairn_agent_v1_LocalBackupPruneInput, _cairn_agent_v1_LocalBackupPrune>
        ManifestEntry: MessageTypeDefinition<_cairn_agent_v1_ManifestEntryInput, _cairn_agent_v1_ManifestEntry>
        NetworkRoute: MessageTypeDefinition<_cairn_agent_v1_NetworkRouteInput, _cairn_agent_v1_NetworkRoute>
        ObjectUploaded: MessageTypeDefinition<_cairn_agent_v1_ObjectUploadedInput, _cairn_agent_v1_ObjectUploaded>
        Players: MessageTypeDefinition<_cairn_agent_v1_PlayersInput, _cairn_agent_v1_Players>
        PortBinding: MessageTypeDefinition<_cairn_agent_v1_PortBindingInput, _cairn_agent_v1_PortBinding>
        PortRange: MessageTypeDefinition<_cairn_agent_v1_PortRangeInput, _cairn_agent_v1_PortRange>
        PrefetchArtifact: MessageTypeDefinition<_cairn_agent_v1_PrefetchArtifactInput, _cairn_agent_v1_PrefetchArtifact>
        Properties: MessageTypeDefinition<_cairn_agent_v1_PropertiesInput, _cairn_agent_v1_Properties>
        PropertiesGet: MessageTypeDefinition<_cairn_agent_v1_PropertiesGetInput, _cairn_agent_v1_PropertiesGet>
        PropertiesPatch: MessageTypeDefinition<_cairn_agent_v1_PropertiesPatchInput, _cairn_agent_v1_PropertiesPatch>
        PullFile: MessageTypeDefinition<_cairn_agent_v1_PullFileInput, _cairn_agent_v1_PullFile>
        Request: MessageTypeDefinition<_cairn_agent_v1_RequestInput, _cairn_agent_v1_Request>
        RequestFullState: MessageTypeDefinition<_cairn_agent_v1_RequestFullStateInput, _cairn_agent_v1_RequestFullState>
        Resources: MessageTypeDefinition<_cairn_agent_v1_ResourcesInput, _cairn_agent_v1_Resources>
        Response: MessageTypeDefinition<_cairn_agent_v1_ResponseInput, _cairn_agent_v1_Response>
        ResponseError: MessageTypeDefinition<_cairn_agent_v1_ResponseErrorInput, _cairn_agent_v1_ResponseError>
        RestartPolicy: MessageTypeDefinition<_cairn_agent_v1_RestartPolicyInput, _cairn_agent_v1_RestartPolicy>
        Runtime: MessageTypeDefinition<_cairn_agent_v1_RuntimeInput, _cairn_agent_v1_Runtime>
        RuntimeState: EnumTypeDefinition
        ServerNetwork: MessageTypeDefinition<_cairn_agent_v1_ServerNetworkInput, _cairn_agent_v1_ServerNetwork>
        ServerResources: MessageTypeDefinition<_cairn_agent_v1_ServerResourcesInput, _cairn_agent_v1_ServerResources>
        ServerStatus: MessageTypeDefinition<_cairn_agent_v1_ServerStatusInput, _cairn_agent_v1_ServerStatus>
        SleepPolicy: MessageTypeDefinition<_cairn_agent_v1_SleepPolicyInput, _cairn_agent_v1_SleepPolicy>
        Sleeping: MessageTypeDefinition<_cairn_agent_v1_SleepingInput, _cairn_agent_v1_Sleeping>
        SnapshotClose: MessageTypeDefinition<_cairn_agent_v1_SnapshotCloseInput, _cairn_agent_v1_SnapshotClose>
        SnapshotHashes: MessageTypeDefinition<_cairn_agent_v1_SnapshotHashesInput, _cairn_agent_v1_SnapshotHashes>
        SnapshotManifest: MessageTypeDefinition<_cairn_agent_v1_SnapshotManifestInput, _cairn_agent_v1_SnapshotManifest>
        SnapshotOpen: MessageTypeDefinition<_cairn_agent_v1_SnapshotOpenInput, _cairn_agent_v1_SnapshotOpen>
        SnapshotRead: MessageTypeDefinition<_cairn_agent_v1_SnapshotReadInput, _cairn_agent_v1_SnapshotRead>
        SnapshotServe: MessageTypeDefinition<_cairn_agent_v1_SnapshotServeInput, _cairn_agent_v1_SnapshotServe>
        SnapshotServing: MessageTypeDefinition<_cairn_agent_v1_SnapshotServingInput, _cairn_agent_v1_SnapshotServing>
        SnapshotUpload: MessageTypeDefinition<_cairn_agent_v1_SnapshotUploadInput, _cairn_agent_v1_SnapshotUpload>
        Software: MessageTypeDefinition<_cairn_agent_v1_SoftwareInput, _cairn_agent_v1_Software>
        StageAbort: MessageTypeDefinition<_cairn_agent_v1_StageAbortInput, _cairn_agent_v1_StageAbort>
        StageBegin: MessageTypeDefinition<_cairn_agent_v1_StageBeginInput, _cairn_agent_v1_StageBegin>
        StageCommit: MessageTypeDefinition<_cairn_agent_v1_StageCommitInput, _cairn_agent_v1_StageCommit>
        StageCommitState: MessageTypeDefinition<_cairn_agent_v1_StageCommitStateInput, _cairn_agent_v1_StageCommitState>
        StageCommitted: MessageTypeDefinition<_cairn_agent_v1_StageCommittedInput, _cairn_agent_v1_StageCommitted>
        StageFetch: MessageTypeDefinition<_cairn_agent_v1_StageFetchInput, _cairn_agent_v1_StageFetch>
        StageFromLocal: MessageTypeDefinition<_cairn_agent_v1_StageFromLocalInput, _cairn_agent_v1_StageFromLocal>
        StagePull: MessageTypeDefinition<_cairn_agent_v1_StagePullInput, _cairn_agent_v1_StagePull>
        StagePulled: MessageTypeDefinition<_cairn_agent_v1_StagePulledInput, _cairn_agent_v1_StagePulled>
        StageRemove: MessageTypeDefinition<_cairn_agent_v1_StageRemoveInput, _cairn_agent_v1_StageRemove>
        StageScan: MessageTypeDefinition<_cairn_agent_v1_StageScanInput, _cairn_agent_v1_StageScan>
        StageWrite: MessageTypeDefinition<_cairn_agent_v1_StageWriteInput, _cairn_agent_v1_StageWrite>
        UploadAppend: MessageTypeDefinition<_cairn_agent_v1_UploadAppendInput, _cairn_agent_v1_UploadAppend>
        UploadBegin: MessageTypeDefinition<_cairn_agent_v1_UploadBeginInput, _cairn_agent_v1_UploadBegin>
        UploadCancel: MessageTypeDefinition<_cairn_agent_v1_UploadCancelInput, _cairn_agent_v1_UploadCancel>
        UploadComplete: MessageTypeDefinition<_cairn_agent_v1_UploadCompleteInput, _cairn_agent_v1_UploadComplete>
        UploadState: MessageTypeDefinition<_cairn_agent_v1_UploadStateInput, _cairn_agent_v1_UploadState>
        UploadStatus: MessageTypeDefinition<_cairn_agent_v1_UploadStatusInput, _cairn_agent_v1_UploadStatus>
        UsageHistory: MessageTypeDefinition<_cairn_agent_v1_UsageHistoryInput, _cairn_agent_v1_UsageHistory>
        UsageSample: MessageTypeDefinition<_cairn_agent_v1_UsageSampleInput, _cairn_agent_v1_UsageSample>
        UsageSamples: MessageTypeDefinition<_cairn_agent_v1_UsageSamplesInput, _cairn_agent_v1_UsageSamples>
        Wake: MessageTypeDefinition<_cairn_agent_v1_WakeInput, _cairn_agent_v1_Wake>
        Welcome: MessageTypeDefinition<_cairn_agent_v1_WelcomeInput, _cairn_agent_v1_Welcome>
      }
    }
  }
}

