import net from 'node:net';

export type TcpProxy = {
  /** `host:port` of the proxy, to put in a connection URL in place of the real server's. */
  host: string;
  port: number;
  /** Drops every open connection and refuses new ones until `restore()`: the server "went away". */
  cut(): void;
  restore(): void;
  /** Connections accepted so far (a reconnecting client shows up here). */
  connectionCount(): number;
  close(): Promise<void>;
};

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (Postgres, Redis), for fault-injection tests: point the
 * processes under test at it, then `cut()` to kill their connections as a server restart or network failure would,
 * without disturbing the real server that other tests share.
 * @example const proxy = await startTcpProxy(6379); const url = `redis://127.0.0.1:${proxy.port}`; proxy.cut(); proxy.restore();
 */
export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let isCut = false;
  let accepted = 0;
  const server = net.createServer((client) => {
    if (isCut) return void client.destroy();
    accepted += 1;
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.setNoDelay(true);
      // either side failing ends both: the client sees what it would see if the server died
      socket.once('error', () => {});
      socket.once('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    cut() {
      isCut = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      isCut = false;
    },
    connectionCount: () => accepted,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
