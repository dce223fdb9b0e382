import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How the bench's own servers (the bare node:http floor, the ceilings) run: on a free loopback port, which
 * they print as `{"port":N}` (the bench reads the first JSON line), until SIGTERM closes them.
 */
export function serveOnLoopback(server: Server): void {
  // Longer than the load generators' idle gaps between a warm-up and its window: no reconnects mid-run.
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on("SIGTERM", () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
