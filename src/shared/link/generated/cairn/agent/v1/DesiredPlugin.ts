// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One installed plugin jar, fetched by sha256 with FetchArtifact.
 */
export interface DesiredPluginInput {
  /**
   * The installation's id (UUID).
   */
  'installationId'?: (string);
  /**
   * The file name to give the jar in `plugins/` (one path element, ends in .jar).
   */
  'fileName'?: (string);
  /**
   * Lower-case hex SHA-256 of the jar; the Agent refuses bytes that do not match it.
   */
  'sha256'?: (string);
  /**
   * Size of the jar in bytes.
   */
  'sizeBytes'?: (number | string | Long);
  /**
   * The plugin's id (`<source>:<id>` or `upload:<name>`), for logs and messages.
   */
  'pluginId'?: (string);
}

/**
 * One installed plugin jar, fetched by sha256 with FetchArtifact.
 */
export interface DesiredPlugin {
  /**
   * The installation's id (UUID).
   */
  'installationId': (string);
  /**
   * The file name to give the jar in `plugins/` (one path element, ends in .jar).
   */
  'fileName': (string);
  /**
   * Lower-case hex SHA-256 of the jar; the Agent refuses bytes that do not match it.
   */
  'sha256': (string);
  /**
   * Size of the jar in bytes.
   */
  'sizeBytes': (number);
  /**
   * The plugin's id (`<source>:<id>` or `upload:<name>`), for logs and messages.
   */
  'pluginId': (string);
}
