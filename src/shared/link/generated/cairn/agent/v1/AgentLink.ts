// Original file: proto/cairn/agent/v1/agent.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AgentMessageInput as _cairn_agent_v1_AgentMessageInput, AgentMessage as _cairn_agent_v1_AgentMessage } from '../../../cairn/agent/v1/AgentMessage.js';
import type { ArtifactChunkInput as _cairn_agent_v1_ArtifactChunkInput, ArtifactChunk as _cairn_agent_v1_ArtifactChunk } from '../../../cairn/agent/v1/ArtifactChunk.js';
import type { ControllerMessageInput as _cairn_agent_v1_ControllerMessageInput, ControllerMessage as _cairn_agent_v1_ControllerMessage } from '../../../cairn/agent/v1/ControllerMessage.js';
import type { EnrollRequestInput as _cairn_agent_v1_EnrollRequestInput, EnrollRequest as _cairn_agent_v1_EnrollRequest } from '../../../cairn/agent/v1/EnrollRequest.js';
import type { EnrollResponseInput as _cairn_agent_v1_EnrollResponseInput, EnrollResponse as _cairn_agent_v1_EnrollResponse } from '../../../cairn/agent/v1/EnrollResponse.js';
import type { FetchArtifactRequestInput as _cairn_agent_v1_FetchArtifactRequestInput, FetchArtifactRequest as _cairn_agent_v1_FetchArtifactRequest } from '../../../cairn/agent/v1/FetchArtifactRequest.js';

export interface AgentLinkClient extends grpc.Client {
  /**
   * The Node's one session. A new Connect of the same Node replaces the old stream. A missing,
   * invalid, superseded or revoked credential fails with UNAUTHENTICATED.
   */
  Connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_cairn_agent_v1_AgentMessageInput, _cairn_agent_v1_ControllerMessage>;
  Connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_cairn_agent_v1_AgentMessageInput, _cairn_agent_v1_ControllerMessage>;
  /**
   * The Node's one session. A new Connect of the same Node replaces the old stream. A missing,
   * invalid, superseded or revoked credential fails with UNAUTHENTICATED.
   */
  connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_cairn_agent_v1_AgentMessageInput, _cairn_agent_v1_ControllerMessage>;
  connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_cairn_agent_v1_AgentMessageInput, _cairn_agent_v1_ControllerMessage>;
  
  /**
   * Turns a one-time enrollment token into a Node credential. A used, expired or unknown token,
   * or one of a revoked Node, fails with UNAUTHENTICATED; a retry of the same enrollment (same
   * token and enrollment_attempt_id) answers the same credential again. UNAVAILABLE when the
   * Controller has too many Enrolls waiting: retry after a backoff with jitter.
   */
  Enroll(argument: _cairn_agent_v1_EnrollRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  Enroll(argument: _cairn_agent_v1_EnrollRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  Enroll(argument: _cairn_agent_v1_EnrollRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  Enroll(argument: _cairn_agent_v1_EnrollRequestInput, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  /**
   * Turns a one-time enrollment token into a Node credential. A used, expired or unknown token,
   * or one of a revoked Node, fails with UNAUTHENTICATED; a retry of the same enrollment (same
   * token and enrollment_attempt_id) answers the same credential again. UNAVAILABLE when the
   * Controller has too many Enrolls waiting: retry after a backoff with jitter.
   */
  enroll(argument: _cairn_agent_v1_EnrollRequestInput, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  enroll(argument: _cairn_agent_v1_EnrollRequestInput, metadata: grpc.Metadata, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  enroll(argument: _cairn_agent_v1_EnrollRequestInput, options: grpc.CallOptions, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  enroll(argument: _cairn_agent_v1_EnrollRequestInput, callback: grpc.requestCallback<_cairn_agent_v1_EnrollResponse>): grpc.ClientUnaryCall;
  
  /**
   * Streams one artifact (today: a plugin jar) by its sha256, in chunks of at most 256 KiB. The
   * credential is presented as on Connect; a Node may fetch only jars installed on its own servers.
   * NOT_FOUND when no server of the Node has it; UNAVAILABLE when the Controller cannot get the
   * bytes (e.g. the catalog's download failed its checksum). The Agent checks the sha256 itself too.
   */
  FetchArtifact(argument: _cairn_agent_v1_FetchArtifactRequestInput, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_cairn_agent_v1_ArtifactChunk>;
  FetchArtifact(argument: _cairn_agent_v1_FetchArtifactRequestInput, options?: grpc.CallOptions): grpc.ClientReadableStream<_cairn_agent_v1_ArtifactChunk>;
  /**
   * Streams one artifact (today: a plugin jar) by its sha256, in chunks of at most 256 KiB. The
   * credential is presented as on Connect; a Node may fetch only jars installed on its own servers.
   * NOT_FOUND when no server of the Node has it; UNAVAILABLE when the Controller cannot get the
   * bytes (e.g. the catalog's download failed its checksum). The Agent checks the sha256 itself too.
   */
  fetchArtifact(argument: _cairn_agent_v1_FetchArtifactRequestInput, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_cairn_agent_v1_ArtifactChunk>;
  fetchArtifact(argument: _cairn_agent_v1_FetchArtifactRequestInput, options?: grpc.CallOptions): grpc.ClientReadableStream<_cairn_agent_v1_ArtifactChunk>;
  
}

export interface AgentLinkHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The Node's one session. A new Connect of the same Node replaces the old stream. A missing,
   * invalid, superseded or revoked credential fails with UNAUTHENTICATED.
   */
  Connect: grpc.handleBidiStreamingCall<_cairn_agent_v1_AgentMessage, _cairn_agent_v1_ControllerMessageInput>;
  
  /**
   * Turns a one-time enrollment token into a Node credential. A used, expired or unknown token,
   * or one of a revoked Node, fails with UNAUTHENTICATED; a retry of the same enrollment (same
   * token and enrollment_attempt_id) answers the same credential again. UNAVAILABLE when the
   * Controller has too many Enrolls waiting: retry after a backoff with jitter.
   */
  Enroll: grpc.handleUnaryCall<_cairn_agent_v1_EnrollRequest, _cairn_agent_v1_EnrollResponseInput>;
  
  /**
   * Streams one artifact (today: a plugin jar) by its sha256, in chunks of at most 256 KiB. The
   * credential is presented as on Connect; a Node may fetch only jars installed on its own servers.
   * NOT_FOUND when no server of the Node has it; UNAVAILABLE when the Controller cannot get the
   * bytes (e.g. the catalog's download failed its checksum). The Agent checks the sha256 itself too.
   */
  FetchArtifact: grpc.handleServerStreamingCall<_cairn_agent_v1_FetchArtifactRequest, _cairn_agent_v1_ArtifactChunkInput>;
  
}

export interface AgentLinkDefinition extends grpc.ServiceDefinition {
  Connect: MethodDefinition<_cairn_agent_v1_AgentMessageInput, _cairn_agent_v1_ControllerMessageInput, _cairn_agent_v1_AgentMessage, _cairn_agent_v1_ControllerMessage>
  Enroll: MethodDefinition<_cairn_agent_v1_EnrollRequestInput, _cairn_agent_v1_EnrollResponseInput, _cairn_agent_v1_EnrollRequest, _cairn_agent_v1_EnrollResponse>
  FetchArtifact: MethodDefinition<_cairn_agent_v1_FetchArtifactRequestInput, _cairn_agent_v1_ArtifactChunkInput, _cairn_agent_v1_FetchArtifactRequest, _cairn_agent_v1_ArtifactChunk>
}
