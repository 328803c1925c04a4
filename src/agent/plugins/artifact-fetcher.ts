import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as grpc from '@grpc/grpc-js';
import type { ArtifactChunk } from '../../shared/link/messages.js';
import { agentLinkClientConstructor, credentialMetadataKey } from '../../shared/link/proto.js';
import { agentChannelOptions } from '../link-client.js';

/** The artifact could not be fetched, or its bytes are not the ones asked for. */
export class ArtifactFetchError extends Error {
  override name = 'ArtifactFetchError';
}

export interface FetcherOptions {
  address: string;
  channelCredentials: grpc.ChannelCredentials;
  credential: string;
  /** Give up on one fetch after this long. */
  timeoutMs?: number;
}

/** Fetches artifacts from the Controller with FetchArtifact, presenting the Node credential. */
export class ArtifactFetcher {
  constructor(private readonly options: FetcherOptions) {}

  /** Writes the artifact of `sha256` to `dest`, refusing bytes whose size or hash differ. */
  async fetch(sha256: string, sizeBytes: number, dest: string): Promise<void> {
    const Client = agentLinkClientConstructor();
    const client = new Client(this.options.address, this.options.channelCredentials, agentChannelOptions);
    const metadata = new grpc.Metadata();
    metadata.set(credentialMetadataKey, `Bearer ${this.options.credential}`);
    await mkdir(join(dest, '..'), { recursive: true });
    const temp = `${dest}.${randomUUID()}.part`;
    const hash = createHash('sha256');
    let size = 0;
    const check = new Transform({
      objectMode: true,
      transform(chunk: ArtifactChunk, _enc, done) {
        size += chunk.data.length;
        if (size > sizeBytes) return done(new ArtifactFetchError(`artifact ${sha256} is larger than the ${sizeBytes} bytes expected`));
        hash.update(chunk.data);
        done(null, chunk.data);
      },
    });
    try {
      const call = client.FetchArtifact({ sha256 }, metadata, { deadline: Date.now() + (this.options.timeoutMs ?? 300_000) });
      await pipeline(call, check, createWriteStream(temp, { mode: 0o600 }));
      const actual = hash.digest('hex');
      if (actual !== sha256 || size !== sizeBytes) throw new ArtifactFetchError(`artifact ${sha256}: got ${size} bytes with sha256 ${actual}`);
      await rename(temp, dest);
    } catch (error) {
      if (error instanceof ArtifactFetchError) throw error;
      // A gRPC failure carries details; a local one (the temp file) only a message.
      const { details } = error as Partial<grpc.ServiceError>;
      throw new ArtifactFetchError(`fetching artifact ${sha256} failed: ${details ?? (error as Error).message}`);
    } finally {
      await rm(temp, { force: true });
      client.close();
    }
  }
}
