/**
 * The link's TypeScript types. Every message shape is generated from
 * `proto/cairn/agent/v1/agent.proto` into `generated/` (`npm run gen:proto`, with the flags of the
 * loader options in `proto.ts`); this module names the ones the code uses and adds what the
 * generator cannot say: a oneof as a discriminated union on the loader's virtual field (`kind`,
 * `body`, `payload`), and the closed set of values the proto documents for a string field where
 * the public API depends on it.
 *
 * A name here is a message as the loader decodes it: every field present (proto3 defaults), a
 * nested message `null` when unset. Both sides also write messages in this complete shape, so a
 * field added to the proto is a compile error wherever that message is built. (`generated/` also
 * has the loader's permissive `…Input` shapes, which the streams accept.)
 */
import type { AgentMessage as AgentMessageFields } from './generated/cairn/agent/v1/AgentMessage.js';
import type { ControllerMessage as ControllerMessageFields } from './generated/cairn/agent/v1/ControllerMessage.js';
import type { FileEntry as FileEntryFields } from './generated/cairn/agent/v1/FileEntry.js';
import type { Request as RequestFields } from './generated/cairn/agent/v1/Request.js';
import type { Response as ResponseFields } from './generated/cairn/agent/v1/Response.js';

export type { ArtifactChunk } from './generated/cairn/agent/v1/ArtifactChunk.js';
export type { Condition } from './generated/cairn/agent/v1/Condition.js';
export type { ConsoleEnd } from './generated/cairn/agent/v1/ConsoleEnd.js';
export type { ConsoleLine } from './generated/cairn/agent/v1/ConsoleLine.js';
export type { ConsoleReplay } from './generated/cairn/agent/v1/ConsoleReplay.js';
export type { DesiredPlugin } from './generated/cairn/agent/v1/DesiredPlugin.js';
export type { DesiredServerChange } from './generated/cairn/agent/v1/DesiredServerChange.js';
export type { DesiredServer } from './generated/cairn/agent/v1/DesiredServer.js';
export type { DesiredState } from './generated/cairn/agent/v1/DesiredState.js';
export type { EnrollRequest } from './generated/cairn/agent/v1/EnrollRequest.js';
export type { EnrollResponse } from './generated/cairn/agent/v1/EnrollResponse.js';
export type { FileChunk } from './generated/cairn/agent/v1/FileChunk.js';
export type { Heartbeat } from './generated/cairn/agent/v1/Heartbeat.js';
export type { Hello } from './generated/cairn/agent/v1/Hello.js';
export type { HostFacts } from './generated/cairn/agent/v1/HostFacts.js';
export type { LastCrash } from './generated/cairn/agent/v1/LastCrash.js';
export type { NetworkRoute } from './generated/cairn/agent/v1/NetworkRoute.js';
export type { PortRange } from './generated/cairn/agent/v1/PortRange.js';
export type { RequestFullState } from './generated/cairn/agent/v1/RequestFullState.js';
export type { Resources } from './generated/cairn/agent/v1/Resources.js';
export type { Runtime } from './generated/cairn/agent/v1/Runtime.js';
export type { ServerNetwork } from './generated/cairn/agent/v1/ServerNetwork.js';
export type { ServerStatus } from './generated/cairn/agent/v1/ServerStatus.js';
export type { Welcome } from './generated/cairn/agent/v1/Welcome.js';

/** The members of the oneof whose virtual field is `D`. */
type Members<T, D extends keyof T> = Extract<NonNullable<T[D]>, keyof T>;

/** The oneof whose virtual field is `D`: exactly one member set, and `D` names it. */
type OneOf<T, D extends keyof T> = { [K in Members<T, D>]: Record<D, K> & Record<K, NonNullable<T[K]>> }[Members<T, D>];

/** The fields of `T` outside the oneof `D`. */
type Outside<T, D extends keyof T> = Omit<T, D | Members<T, D>>;

/** `T` with the fields of `R` in place of its own. */
type Override<T, R> = Omit<T, keyof R> & R;

/** The API lists a file's type as one of these (`FileEntry.type`). */
export type FileEntry = Override<FileEntryFields, { type: 'FILE' | 'DIRECTORY' }>;

/** What the Controller asks; the session adds the id and the deadline. */
export type RequestBody = OneOf<RequestFields, 'body'>;

export type Request = Outside<RequestFields, 'body'> & RequestBody;

/** The payload of one Response: none, or one member of its oneof. */
export type ResponsePayload =
  | OneOf<Override<ResponseFields, { fileEntries?: { entries: FileEntry[] } | null }>, 'payload'>
  | { payload?: undefined };

export type Response = Outside<ResponseFields, 'payload'> & ResponsePayload;

/** Agent → Controller. */
export type AgentMessage = OneOf<Override<AgentMessageFields, { response?: Response | null }>, 'kind'>;

/** Controller → Agent. */
export type ControllerMessage = OneOf<Override<ControllerMessageFields, { request?: Request | null }>, 'kind'>;

/** Largest chunk of file data in one message (contract: at most 1 MiB). */
export const maxChunkBytes = 1024 * 1024;
