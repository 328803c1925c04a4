import type { EnrollRequest, EnrollResponse } from '../../shared/link/messages.js';

/** What the link asks of the Controller's services: redeem tokens and check credentials. */
export interface AgentGate {
  enroll(input: EnrollRequest): Promise<EnrollResponse>;
  /** The Node id of a valid, current credential; throws ConnectRefusedError otherwise. */
  authenticate(credential: string): Promise<string>;
}
