import type { ServerResponse } from "node:http";
import { Histogram, type Registry } from "prom-client";

const STARTED = Symbol("metrics.started");
const ROUTE = Symbol("metrics.route");

type TrackedResponse = ServerResponse & { [STARTED]?: number; [ROUTE]?: string };

/** Up to 10 s; the token endpoint answers in about a millisecond, logins with scrypt in tens. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Requests by route and status, with their latency: one histogram, whose `_count` is the request count.
 * The token endpoint is benchmarked, so tracking a request costs two symbol properties, one listener (the
 * same function for every response, no closure) and the histogram's observe.
 */
export class HttpMetrics {
  readonly #finished: (this: TrackedResponse) => void;

  constructor(registry: Registry) {
    const duration = new Histogram({
      name: "http_request_duration_seconds",
      help: 'HTTP requests by route (the endpoint or page area, never the raw path) and status, with their duration; a response the client abandoned has status "aborted"',
      labelNames: ["route", "status"],
      buckets: BUCKETS,
      registers: [registry],
    });
    this.#finished = function (this: TrackedResponse) {
      const status = this.writableFinished ? this.statusCode : "aborted";
      duration.observe({ route: this[ROUTE] ?? "other", status }, (performance.now() - (this[STARTED] ?? 0)) / 1000);
    };
  }

  /**
   * Called for every request as it arrives. `route` is a label from a fixed set (an endpoint's path, a
   * page area's template, "other"), never the raw path: each distinct value is a series kept forever.
   */
  readonly track = (res: ServerResponse, route: string): void => {
    const tracked = res as TrackedResponse;
    tracked[STARTED] = performance.now();
    tracked[ROUTE] = route;
    res.on("close", this.#finished);
  };
}
