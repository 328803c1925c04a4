import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { AgentLinkHandlers } from '../../shared/link/proto.js';
import type { Logger } from '../../shared/logger.js';
import type { AgentGate } from './agent-gate.js';
import { ConnectRefusedError } from './errors.js';
import { ArtifactUnavailableError } from '../adapters/software/artifact-store.js';
import { withDetails } from '../../shared/failure-text.js';

/** An artifact as a Node asks for it: by sha256, or by sha1 alone (Mojang's server jars). */
export interface ArtifactKey {
  sha256?: string;
  sha1?: string;
}

/** Finds the file a Node asks for: a path when one of its servers needs it (a plugin jar, the server's software). */
export interface ArtifactProvider {
  artifactFor(nodeId: string, key: ArtifactKey): Promise<string | undefined>;
}

export const artifactChunkBytes = 256 * 1024;

type ArtifactCall = Parameters<AgentLinkHandlers['FetchArtifact']>[0];

const fail = (call: ArtifactCall, code: grpc.status, details: string) => call.emit('error', { code, details });

/**
 * `FetchArtifact`: the Node credential is checked exactly as on Connect, then the jar is streamed
 * in chunks, waiting for the client to drain. Any failure to produce the bytes is UNAVAILABLE,
 * so the Agent's start fails and is reported rather than running without the plugin.
 */
export async function serveArtifact(call: ArtifactCall, credential: string, deps: { gate: AgentGate; artifacts?: ArtifactProvider; logger: Logger }): Promise<void> {
  let nodeId: string;
  try {
    nodeId = await deps.gate.authenticate(credential);
  } catch (e) {
    if (!(e instanceof ConnectRefusedError)) deps.logger.error({ err: e }, 'authenticating an artifact fetch failed');
    return void fail(call, grpc.status.UNAUTHENTICATED, `fetch refused: ${e instanceof ConnectRefusedError ? e.reason : 'internal'}`);
  }
  const { sha256, sha1 } = call.request;
  if (sha256 ? !/^[0-9a-f]{64}$/.test(sha256) : !/^[0-9a-f]{40}$/.test(sha1)) {
    return void fail(call, grpc.status.INVALID_ARGUMENT, 'give sha256 as 64 lower-case hex digits, or sha1 as 40');
  }
  const key = sha256 ? { sha256 } : { sha1 };
  const name = sha256 || sha1;
  let path: string | undefined;
  try {
    path = await deps.artifacts?.artifactFor(nodeId, key);
  } catch (e) {
    deps.logger.warn({ event: 'artifact_unavailable', nodeId, artifact: name, reason: (e as Error).message }, 'an artifact a Node asked for is unavailable');
    // Words first, the artifact's hash in the details: the Agent passes this on as the install's failure.
    const words = e instanceof ArtifactUnavailableError && e.explained ? e.explained : `The Controller could not provide the artifact: ${(e as Error).message}`;
    return void fail(call, grpc.status.UNAVAILABLE, withDetails(words, `artifact ${name}`));
  }
  if (!path) return void fail(call, grpc.status.NOT_FOUND, `no server of this Node needs artifact ${name}`);
  try {
    const { size } = await stat(path);
    for await (const data of createReadStream(path, { highWaterMark: artifactChunkBytes }) as AsyncIterable<Buffer>) {
      if (call.cancelled) return;
      if (!call.write({ data, totalBytes: size })) await once(call, 'drain');
    }
    call.end();
  } catch (e) {
    deps.logger.error({ err: e, nodeId, artifact: name }, 'streaming an artifact failed');
    fail(call, grpc.status.UNAVAILABLE, `reading artifact ${name} failed`);
  }
}
