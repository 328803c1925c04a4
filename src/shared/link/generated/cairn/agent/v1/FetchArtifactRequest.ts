// Original file: proto/cairn/agent/v1/agent.proto


export interface FetchArtifactRequestInput {
  /**
   * Lower-case hex SHA-256 of the artifact's bytes; empty when only its SHA-1 is known.
   */
  'sha256'?: (string);
  /**
   * Lower-case hex SHA-1 of the artifact's bytes, for software whose vendor publishes only that
   * (Mojang); used when `sha256` is empty. The Agent checks the bytes against whichever it sent.
   */
  'sha1'?: (string);
}

export interface FetchArtifactRequest {
  /**
   * Lower-case hex SHA-256 of the artifact's bytes; empty when only its SHA-1 is known.
   */
  'sha256': (string);
  /**
   * Lower-case hex SHA-1 of the artifact's bytes, for software whose vendor publishes only that
   * (Mojang); used when `sha256` is empty. The Agent checks the bytes against whichever it sent.
   */
  'sha1': (string);
}
