// Original file: proto/cairn/agent/v1/agent.proto

import type { SoftwareInput as _cairn_agent_v1_SoftwareInput, Software as _cairn_agent_v1_Software } from '../../../cairn/agent/v1/Software.js';

/**
 * Makes a stage the server's files: the server must not be running here; everything but `.cairn`
 * is replaced by the stage, then the software is installed again from `template_json`.
 */
export interface StageCommitInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
  /**
   * The server (as in StageBegin).
   */
  'serverId'?: (string);
  /**
   * The server's template (as in DesiredServer.template_json).
   */
  'templateJson'?: (string);
  /**
   * The software to install.
   */
  'software'?: (_cairn_agent_v1_SoftwareInput | null);
}

/**
 * Makes a stage the server's files: the server must not be running here; everything but `.cairn`
 * is replaced by the stage, then the software is installed again from `template_json`.
 */
export interface StageCommit {
  /**
   * The stage.
   */
  'stageId': (string);
  /**
   * The server (as in StageBegin).
   */
  'serverId': (string);
  /**
   * The server's template (as in DesiredServer.template_json).
   */
  'templateJson': (string);
  /**
   * The software to install.
   */
  'software': (_cairn_agent_v1_Software | null);
}
