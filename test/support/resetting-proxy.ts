/**
 * A TCP proxy in front of PostgreSQL that resets chosen connections (a TCP RST, which the client
 * sees as `ECONNRESET`) at a chosen query, after startup and authentication went through: a
 * connection dropped mid-run, as under load or when a server or PgBouncer restarts.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

/** First byte of the frontend messages that start a query: simple `Q`uery, extended `P`arse. */
const QUERY_TYPES = new Set([0x51, 0x50]);

export interface ResettingProxy {
  /** `url` with host and port replaced by the proxy's. */
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections reset so far. */
  readonly resets: number;
  close(): Promise<void>;
}

/**
 * Starts a proxy to the server of `url` on a free local port. `reset(connection, query, text)`
 * decides, before the query-th query (from 0) of the connection-th connection (from 0) is sent
 * (`text`: the bytes sent with it, as UTF-8, the SQL among them), whether to reset that connection
 * instead (`true`), or to send the query and reset the connection as its first reply comes, the
 * reply dropped (`"after-reply"`: a COMMIT done on the server whose answer never reached the client).
 */
export async function resettingProxy(
  url: string,
  reset: (connection: number, query: number, text: string) => boolean | "after-reply",
): Promise<ResettingProxy> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let connections = 0;
  let resets = 0;
  const server: Server = createServer((client) => {
    const index = connections;
    connections += 1;
    let queries = 0;
    let resetOnReply = false;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (chunk: Buffer) => {
      if (QUERY_TYPES.has(chunk[0] as number)) {
        const decision = reset(index, queries, chunk.toString("utf8"));
        if (decision === true) {
          resets += 1;
          upstream.destroy();
          client.resetAndDestroy();
          return;
        }
        if (decision === "after-reply") resetOnReply = true;
        queries += 1;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (resetOnReply) {
        resets += 1;
        upstream.destroy();
        client.resetAndDestroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    get connections() {
      return connections;
    },
    get resets() {
      return resets;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
