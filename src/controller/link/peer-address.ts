/**
 * The IP address in a grpc-js peer string: `127.0.0.1:5000`, `[::1]:5000`, `[::ffff:10.0.0.2]:5000`.
 * IPv4-mapped IPv6 addresses are shown as plain IPv4, as operators write them.
 */
export function peerAddress(peer: string): string {
  let host = peer;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(peer);
  if (bracketed) host = bracketed[1];
  else if (/^[^:]+:\d+$/.test(peer)) host = peer.slice(0, peer.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
  return mapped ? mapped[1] : host;
}
