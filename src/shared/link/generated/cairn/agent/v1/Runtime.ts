// Original file: proto/cairn/agent/v1/agent.proto


/**
 * One runtime installation on the Node.
 */
export interface RuntimeInput {
  /**
   * What it is: "java".
   */
  'name'?: (string);
  /**
   * As the installation prints it, e.g. "17.0.15", "1.8.0_392", "25".
   */
  'version'?: (string);
  /**
   * The feature release, e.g. 8 for "1.8.0_392", 17 for "17.0.15".
   */
  'major'?: (number);
  /**
   * The launcher's real path on the Node.
   */
  'path'?: (string);
}

/**
 * One runtime installation on the Node.
 */
export interface Runtime {
  /**
   * What it is: "java".
   */
  'name': (string);
  /**
   * As the installation prints it, e.g. "17.0.15", "1.8.0_392", "25".
   */
  'version': (string);
  /**
   * The feature release, e.g. 8 for "1.8.0_392", 17 for "17.0.15".
   */
  'major': (number);
  /**
   * The launcher's real path on the Node.
   */
  'path': (string);
}
