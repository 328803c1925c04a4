import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as grpc from '@grpc/grpc-js';
import type { ArtifactChunk } from '../../shared/link/messages.js';
import { agentLinkClientConstructor, credentialMetadataKey } from '../../shared/link/proto.js';
import { agentChannelOptions } from '../link/link-client.js';
import { splitDetails, withDetails } from '../../shared/failure-text.js';

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

/** An artifact as asked for: by sha256, or by sha1 where its vendor publishes only that; its size when known. */
export interface WantedArtifact {
  sha256?: string;
  sha1?: string;
  size?: number;
}

/** A server jar of unknown size larger than this is not one (the largest are ~60 MB). */
const maxUnsizedBytes = 1024 * 2 ** 20;

/** Fetches artifacts from the Controller with FetchArtifact, presenting the Node credential. */
export class ArtifactFetcher {
  constructor(private readonly options: FetcherOptions) {}

  /** Writes the artifact to `dest`, refusing bytes whose size or hash differ from what was asked for. */
  async fetch(want: WantedArtifact, dest: string): Promise<void> {
    const [algorithm, expected] = want.sha256 ? (['sha256', want.sha256] as const) : want.sha1 ? (['sha1', want.sha1] as const) : [];
    if (!algorithm) throw new ArtifactFetchError('an artifact is fetched by its sha256 or sha1');
    const Client = agentLinkClientConstructor();
    const client = new Client(this.options.address, this.options.channelCredentials, agentChannelOptions);
    const metadata = new grpc.Metadata();
    metadata.set(credentialMetadataKey, `Bearer ${this.options.credential}`);
    await mkdir(join(dest, '..'), { recursive: true });
    const temp = `${dest}.${randomUUID()}.part`;
    const hash = createHash(algorithm);
    const limit = want.size ?? maxUnsizedBytes;
    let size = 0;
    const check = new Transform({
      objectMode: true,
      transform(chunk: ArtifactChunk, _enc, done) {
        size += chunk.data.length;
        if (size > limit) return done(new ArtifactFetchError(`artifact ${expected} is larger than the ${limit} bytes expected`));
        hash.update(chunk.data);
        done(null, chunk.data);
      },
    });
    try {
      const call = client.FetchArtifact({ sha256: want.sha256 ?? '', sha1: want.sha256 ? '' : want.sha1! }, metadata, { deadline: Date.now() + (this.options.timeoutMs ?? 300_000) });
      await pipeline(call, check, createWriteStream(temp, { mode: 0o600 }));
      const actual = hash.digest('hex');
      if (actual !== expected || (want.size !== undefined && size !== want.size)) throw new ArtifactFetchError(`artifact ${expected}: got ${size} bytes with ${algorithm} ${actual}`);
      await rename(temp, dest);
    } catch (error) {
      if (error instanceof ArtifactFetchError) throw error;
      // A gRPC failure carries details; a local one (the temp file) only a message.
      // The Controller words its refusals for people (words, then details); the hash joins the details.
      const { details } = error as Partial<grpc.ServiceError>;
      const { words, details: more } = splitDetails(details ?? (error as Error).message);
      throw new ArtifactFetchError(withDetails(words, ...more, `fetching artifact ${expected} failed`));
    } finally {
      await rm(temp, { force: true });
      client.close();
    }
  }
}
