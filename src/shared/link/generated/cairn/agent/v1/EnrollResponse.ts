// Original file: proto/cairn/agent/v1/agent.proto


export interface EnrollResponseInput {
  /**
   * The Node this Agent now is.
   */
  'nodeId'?: (string);
  /**
   * The Node credential (a signed token). The Agent keeps it private (file mode 0600) and
   * presents it on every Connect. Enrolling again makes the previous credential invalid.
   */
  'credential'?: (string);
}

export interface EnrollResponse {
  /**
   * The Node this Agent now is.
   */
  'nodeId': (string);
  /**
   * The Node credential (a signed token). The Agent keeps it private (file mode 0600) and
   * presents it on every Connect. Enrolling again makes the previous credential invalid.
   */
  'credential': (string);
}
