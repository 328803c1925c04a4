import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from './generated/agent.js';
import type { AgentLinkDefinition } from './generated/cairn/agent/v1/AgentLink.js';

/** The server's handlers of AgentLink, typed from the proto. */
export type { AgentLinkHandlers } from './generated/cairn/agent/v1/AgentLink.js';

const protoFile = join('proto', 'cairn', 'agent', 'v1', 'agent.proto');

/**
 * Finds the package root's `proto/` by walking up from this module, so the same code works from
 * `src/shared/link` (tsx) and `dist/src/shared/link` (built).
 */
export function agentProtoPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, protoFile);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${protoFile} above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * Loader options are part of the wire contract of `messages.ts`, and the type generator takes its
 * flags from them (`scripts/gen-proto.ts`): camelCase fields, int64 as JS numbers (bytes and
 * millis stay far below 2^53), enums as their names, defaults filled in, and a virtual field per
 * oneof naming the member that is set (`kind`, `body`, `payload`), which is what makes the
 * TypeScript unions discriminated.
 */
export const loaderOptions: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  arrays: true,
};

type AgentLinkConstructor = ProtoGrpcType['cairn']['agent']['v1']['AgentLink'];
/** A gRPC client of AgentLink, its methods typed from the proto. */
export type AgentLinkStub = InstanceType<AgentLinkConstructor>;

let cached: AgentLinkConstructor | undefined;

/** The AgentLink client constructor, loaded once per process; its `service` is the server's definition. */
export function agentLinkClientConstructor(): AgentLinkConstructor {
  if (!cached) {
    const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(agentProtoPath(), loaderOptions));
    // The generated ProtoGrpcType describes exactly what loading this proto with these options returns.
    cached = (loaded as unknown as ProtoGrpcType).cairn.agent.v1.AgentLink;
  }
  return cached;
}

/** The AgentLink service definition, for the Controller's server. */
export function agentLinkService(): AgentLinkDefinition {
  return agentLinkClientConstructor().service;
}

/** Metadata key of the Node credential on Connect (`Bearer <credential>`). */
export const credentialMetadataKey = 'authorization';
export const protocolVersion = 1;
