// Original file: proto/cairn/agent/v1/agent.proto

import type { ManifestEntryInput as _cairn_agent_v1_ManifestEntryInput, ManifestEntry as _cairn_agent_v1_ManifestEntry } from '../../../cairn/agent/v1/ManifestEntry.js';

export interface SnapshotManifestInput {
  /**
   * Entries in path order; a directory comes before what it holds.
   */
  'entries'?: (_cairn_agent_v1_ManifestEntryInput)[];
}

export interface SnapshotManifest {
  /**
   * Entries in path order; a directory comes before what it holds.
   */
  'entries': (_cairn_agent_v1_ManifestEntry)[];
}
