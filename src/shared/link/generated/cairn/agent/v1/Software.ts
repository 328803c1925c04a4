// Original file: proto/cairn/agent/v1/agent.proto


/**
 * A software choice: always a service template, never a container image.
 */
export interface SoftwareInput {
  /**
   * Template identifier, e.g. "simcraft" (1 to 64 chars, ^[a-z0-9][a-z0-9-]*$).
   */
  'template'?: (string);
  /**
   * Template version, e.g. "1.21.4".
   */
  'version'?: (string);
  /**
   * Optional build within the version; empty means the newest the template knows.
   */
  'build'?: (string);
}

/**
 * A software choice: always a service template, never a container image.
 */
export interface Software {
  /**
   * Template identifier, e.g. "simcraft" (1 to 64 chars, ^[a-z0-9][a-z0-9-]*$).
   */
  'template': (string);
  /**
   * Template version, e.g. "1.21.4".
   */
  'version': (string);
  /**
   * Optional build within the version; empty means the newest the template knows.
   */
  'build': (string);
}
