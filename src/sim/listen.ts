import type { AddressInfo, Server } from 'node:net';

/** Binds exclusively (a port taken by another process fails, as a real server's bind does) and resolves with the address. */
export function listenExclusive(server: Server, port: number, host: string | undefined): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
