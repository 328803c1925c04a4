/**
 * A resumable upload nobody wrote to for this long is swept with its partial data (the contract's
 * "after a day"): the Agent sweeps by it, the Controller shows it as the upload's `expiresAt`.
 */
export const uploadLifetimeMs = 24 * 60 * 60 * 1000;
