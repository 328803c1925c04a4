import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How a cut treats connections opened during it. `refuse`: closed at once, as a host that is down
 * answers (the client learns at once). `blackhole`: accepted and never answered, as a partition
 * or a firewall dropping packets looks (the client learns only from its own timeouts).
 */
export type CutMode = 'refuse' | 'blackhole';

/**
 * A TCP proxy in front of a local port that a test can cut, as a network drop or a load
 * balancer restart would: every connection through it ends, and new ones are refused (or held
 * silent) until `restore()`.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** Connections held silent by a blackhole cut; ended at `restore()`, since what they sent is lost. */
  private readonly silent = new Set<Socket>();
  private mode: CutMode | undefined;

  private constructor(private readonly server: Server) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (client) => proxy.relay(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  cut(mode: CutMode = 'refuse'): void {
    this.mode = mode;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.mode = undefined;
    for (const socket of this.silent) socket.destroy();
    this.silent.clear();
  }

  async close(): Promise<void> {
    this.cut();
    this.restore();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket, targetPort: number): void {
    if (this.mode === 'refuse') {
      client.destroy();
      return;
    }
    if (this.mode === 'blackhole') {
      this.silent.add(client);
      // Read and drop: the client's writes succeed, and nothing ever answers.
      client.resume();
      client.on('error', () => client.destroy());
      client.on('close', () => this.silent.delete(client));
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [from, to] of [[client, upstream], [upstream, client]]) {
      this.sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }
}
