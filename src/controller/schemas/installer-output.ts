import Type, { type Static } from 'typebox';
import { ArtifactSetRef } from '../../shared/artifact-set.js';

const Checksummed = Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }), size: Type.Integer({ minimum: 0 }) });

/**
 * What a NeoForge or Forge installer left, run once by the Controller per game version, loader
 * and installer jar: its files as one set in the artifact store, and how to start them.
 */
export const InstallerOutput = Type.Object({
  game: Type.String(),
  loader: Type.String(),
  /** The installer jar that ran (checked against the repository's published checksum). */
  installerSha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  /** The set's manifest. */
  tree: ArtifactSetRef,
  /** Every file of the set and its manifest: what the Controller serves Nodes by checksum. */
  produced: Type.Array(Checksummed),
  /** The start arguments the output names, its `libraries/` paths under `{cairnDir}`. */
  args: Type.Array(Type.String()),
  ranAt: Type.String(),
});

export type InstallerOutputRecord = Static<typeof InstallerOutput>;
