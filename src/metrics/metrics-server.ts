import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { paths } from "../http-kit/paths.ts";
import { answerScrape, type MetricsSource } from "./answer-scrape.ts";
import { listenAddress } from "./listen-address.ts";

/** metrics.listen cannot be bound (taken, forbidden, no such interface): the operator fixes provider.yaml. */
export class MetricsListenError extends Error {
  static readonly code: string = "ERR_METRICS_LISTEN";
  readonly code: string = "ERR_METRICS_LISTEN";
  override readonly name = "MetricsListenError";
}

export interface MetricsServer {
  readonly server: Server;
  /** e.g. http://127.0.0.1:9464/metrics */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The separate metrics listener (`metrics.listen`): /metrics and nothing else, so the scrape port can stay
 * on a private interface while the provider's port faces clients. A busy or forbidden address fails the
 * start with a one-line MetricsListenError naming metrics.listen.
 */
export async function startMetricsServer(listen: string, token: string | undefined, source: MetricsSource): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== paths.metrics) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("only /metrics is served here\n");
      return;
    }
    void answerScrape(req, res, token, source);
  });
  const { host, port } = listenAddress(listen);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new MetricsListenError(
          `metrics.listen ${listen}: ${error.code ?? error.message} (choose another address or port in provider.yaml)`,
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound.port}${paths.metrics}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
