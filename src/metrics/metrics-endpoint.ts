import type { ProtocolRoute } from "../http-kit/protocol-route.ts";
import { paths } from "../http-kit/paths.ts";
import { answerScrape, type MetricsSource } from "./answer-scrape.ts";

/** GET /metrics on the main port, for a scraper bearing `metrics.token` (when no `metrics.listen` is set). */
export function metricsEndpoint(source: MetricsSource, token: string): ProtocolRoute {
  return { path: paths.metrics, methods: ["GET", "HEAD"], readsBody: false, handle: (ex) => answerScrape(ex.req, ex.res, token, source) };
}
