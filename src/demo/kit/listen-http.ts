import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ListeningServer {
  server: Server;
  /** http://host:port of the bound port (an IPv6 host in brackets). */
  url: string;
  close(): Promise<void>;
}

/**
 * Binds an http server before its handler exists, so a site whose pages need their own address (a
 * redirect URI, a link in a message) can be built knowing the port that `port: 0` picked.
 * Attach the handler with `server.on("request", app)`.
 */
export async function listenHttp(host: string, port: number): Promise<ListeningServer> {
  const server = createServer().listen(port, host);
  await once(server, "listening");
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
