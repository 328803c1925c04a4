/**
 * The gRPC trailer of an UNAVAILABLE answer to Connect that tells an Agent which Controller drives
 * its Node: that one's link address (HOST:PORT). The Agent dials it next, and its own
 * `--controller` address again when that fails.
 */
export const ownerTrailer = 'cairn-owner';
