import type { EnrollRequest, EnrollResponse } from '../../shared/link/messages.js';

/** What the link asks of the Controller's services: redeem tokens and check credentials. */
export interface AgentGate {
  /** `peer`: the caller's address, which bounds how many of its refusals are audited. */
  enroll(input: EnrollRequest, peer: string): Promise<EnrollResponse>;
  /** The Node id of a valid, current credential; throws ConnectRefusedError otherwise. */
  authenticate(credential: string): Promise<string>;
}
