// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Facts about the host the Agent runs on.
 */
export interface HostFactsInput {
  /**
   * Host name of the machine.
   */
  'hostname'?: (string);
  /**
   * Operating system, e.g. "linux".
   */
  'os'?: (string);
  /**
   * CPU architecture, e.g. "x64", "arm64".
   */
  'arch'?: (string);
  /**
   * Name of the runtime that runs game servers, e.g. "process".
   */
  'runtimeName'?: (string);
  /**
   * Version of that runtime (for the process runtime: the Node.js version of the Agent).
   */
  'runtimeVersion'?: (string);
}

/**
 * Facts about the host the Agent runs on.
 */
export interface HostFacts {
  /**
   * Host name of the machine.
   */
  'hostname': (string);
  /**
   * Operating system, e.g. "linux".
   */
  'os': (string);
  /**
   * CPU architecture, e.g. "x64", "arm64".
   */
  'arch': (string);
  /**
   * Name of the runtime that runs game servers, e.g. "process".
   */
  'runtimeName': (string);
  /**
   * Version of that runtime (for the process runtime: the Node.js version of the Agent).
   */
  'runtimeVersion': (string);
}
