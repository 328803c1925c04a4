import * as grpc from '@grpc/grpc-js';
import type { EnrollRequest, EnrollResponse } from '../../shared/link/messages.js';
import { agentLinkClientConstructor } from '../../shared/link/proto.js';
import { agentChannelOptions } from './link-client.js';

/** The Controller refused the enrollment token (unknown, used, expired, or its Node is revoked). */
export class EnrollmentRefused extends Error {
  constructor(details: string) {
    super(`enrollment refused: ${details}`);
    this.name = 'EnrollmentRefused';
  }
}

/** Redeems the one-time token for a Node credential. Network errors reject with the gRPC error, so the caller can retry those. */
export async function enroll(address: string, credentials: grpc.ChannelCredentials, request: EnrollRequest, timeoutMs = 15_000): Promise<EnrollResponse> {
  const Client = agentLinkClientConstructor();
  const client = new Client(address, credentials, agentChannelOptions);
  try {
    return await new Promise<EnrollResponse>((resolve, reject) => {
      client.Enroll(request, { deadline: Date.now() + timeoutMs }, (error, response) => {
        if (error) reject(error.code === grpc.status.UNAUTHENTICATED ? new EnrollmentRefused(error.details) : error);
        else resolve(response!);
      });
    });
  } finally {
    client.close();
  }
}
