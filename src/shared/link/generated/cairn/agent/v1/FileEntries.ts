// Original file: proto/cairn/agent/v1/agent.proto

import type { FileEntryInput as _cairn_agent_v1_FileEntryInput, FileEntry as _cairn_agent_v1_FileEntry } from '../../../cairn/agent/v1/FileEntry.js';

export interface FileEntriesInput {
  /**
   * The directory's entries, sorted by name.
   */
  'entries'?: (_cairn_agent_v1_FileEntryInput)[];
}

export interface FileEntries {
  /**
   * The directory's entries, sorted by name.
   */
  'entries': (_cairn_agent_v1_FileEntry)[];
}
