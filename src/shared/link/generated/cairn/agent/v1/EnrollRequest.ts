// Original file: proto/cairn/agent/v1/agent.proto


export interface EnrollRequestInput {
  /**
   * The one-time token shown when the Node was created (or re-issued); valid for one hour.
   */
  'enrollmentToken'?: (string);
  /**
   * The host name of the machine enrolling, recorded in the audit log.
   */
  'hostname'?: (string);
  /**
   * The Agent's version, recorded in the audit log.
   */
  'agentVersion'?: (string);
  /**
   * A random id (at least 16 characters) the Agent draws once per token and keeps in its data dir
   * before the first call, so a retry whose earlier answer was lost presents the same one. A used
   * token with the same attempt id, within 15 minutes of its use and its lifetime, answers the
   * same credential again; any other use of a used token is refused. Empty (an Agent older than
   * the field): a used token is always refused. The Controller keeps only its SHA-256.
   */
  'enrollmentAttemptId'?: (string);
}

export interface EnrollRequest {
  /**
   * The one-time token shown when the Node was created (or re-issued); valid for one hour.
   */
  'enrollmentToken': (string);
  /**
   * The host name of the machine enrolling, recorded in the audit log.
   */
  'hostname': (string);
  /**
   * The Agent's version, recorded in the audit log.
   */
  'agentVersion': (string);
  /**
   * A random id (at least 16 characters) the Agent draws once per token and keeps in its data dir
   * before the first call, so a retry whose earlier answer was lost presents the same one. A used
   * token with the same attempt id, within 15 minutes of its use and its lifetime, answers the
   * same credential again; any other use of a used token is refused. Empty (an Agent older than
   * the field): a used token is always refused. The Controller keeps only its SHA-256.
   */
  'enrollmentAttemptId': (string);
}
