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

/** A channel to the Controller with the link's options: the Agent enrolls over it and dials its link on it after. */
export function controllerChannel(address: string, credentials: grpc.ChannelCredentials): grpc.Channel {
  return new grpc.Channel(address, credentials, agentChannelOptions);
}

/**
 * Redeems the one-time token for a Node credential over `channel`, which stays open for the link
 * (the caller closes it). Network errors reject with the gRPC error, so the caller can retry those.
 */
export function enrollOver(channel: grpc.Channel, request: EnrollRequest, timeoutMs = 15_000): Promise<EnrollResponse> {
  const Client = agentLinkClientConstructor();
  const client = new Client(channel.getTarget(), grpc.credentials.createInsecure(), { channelOverride: channel });
  return new Promise<EnrollResponse>((resolve, reject) => {
    client.Enroll(request, { deadline: Date.now() + timeoutMs }, (error, response) => {
      if (error) reject(error.code === grpc.status.UNAUTHENTICATED ? new EnrollmentRefused(error.details) : error);
      else resolve(response!);
    });
  });
}

/** Redeems the one-time token on a connection of its own, closed after the answer. */
export async function enroll(address: string, credentials: grpc.ChannelCredentials, request: EnrollRequest, timeoutMs = 15_000): Promise<EnrollResponse> {
  const channel = controllerChannel(address, credentials);
  try {
    return await enrollOver(channel, request, timeoutMs);
  } finally {
    channel.close();
  }
}
