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
}
