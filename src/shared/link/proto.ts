import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

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
 * Loader options are part of the wire contract of `messages.ts`: camelCase fields, int64 as JS
 * numbers (bytes and millis stay far below 2^53), enums as their names, defaults filled in, and
 * a virtual field per oneof naming the member that is set (`kind`, `body`, `payload`), which is
 * what makes the TypeScript unions discriminated.
 */
export const loaderOptions: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  arrays: true,
};

let cached: grpc.ServiceDefinition | undefined;

/** The AgentLink service definition, loaded once per process. */
export function agentLinkService(): grpc.ServiceDefinition {
  if (!cached) {
    const definition = protoLoader.loadSync(agentProtoPath(), loaderOptions);
    cached = definition['cairn.agent.v1.AgentLink'] as grpc.ServiceDefinition;
  }
  return cached;
}

/** A client constructor for AgentLink (used by the Agent and the benchmark). */
export function agentLinkClientConstructor(): grpc.ServiceClientConstructor {
  return grpc.makeClientConstructor(agentLinkService(), 'cairn.agent.v1.AgentLink');
}

/** Metadata key of the Node credential on Connect (`Bearer <credential>`). */
export const credentialMetadataKey = 'authorization';
export const protocolVersion = 1;
