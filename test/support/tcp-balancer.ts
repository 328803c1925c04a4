import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP load balancer in front of several local ports, as Agents would dial one in front of every
 * Controller's link: each connection goes to the next backend in turn, skipping those that refuse
 * (a killed Controller). `prefer(port)` sends new connections there first.
 */
export class TcpBalancer {
  private next = 0;
  private preferred?: number;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, private readonly backends: number[]) {}

  static async start(backends: number[]): Promise<TcpBalancer> {
    const server = createServer();
    const balancer = new TcpBalancer(server, backends);
    server.on('connection', (client) => balancer.relay(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return balancer;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  prefer(port: number | undefined): void {
    this.preferred = port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private order(): number[] {
    const start = this.next++ % this.backends.length;
    const rotated = [...this.backends.slice(start), ...this.backends.slice(0, start)];
    return this.preferred === undefined ? rotated : [this.preferred, ...rotated.filter((p) => p !== this.preferred)];
  }

  private relay(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.pause();
    const attempt = (ports: number[]) => {
      if (ports.length === 0) {
        client.destroy();
        return;
      }
      const upstream = connect(ports[0], '127.0.0.1');
      let connected = false;
      upstream.once('error', () => {
        if (!connected) attempt(ports.slice(1));
      });
      upstream.once('connect', () => {
        connected = true;
        this.sockets.add(upstream);
        upstream.on('close', () => {
          this.sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(this.order());
  }
}
