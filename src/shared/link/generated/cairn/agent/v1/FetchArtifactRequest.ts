// Original file: proto/cairn/agent/v1/agent.proto


export interface FetchArtifactRequestInput {
  /**
   * Lower-case hex SHA-256 of the artifact's bytes.
   */
  'sha256'?: (string);
}

export interface FetchArtifactRequest {
  /**
   * Lower-case hex SHA-256 of the artifact's bytes.
   */
  'sha256': (string);
}
