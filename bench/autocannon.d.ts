// The part of autocannon 9's API the bench uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      timeout?: number;
      pipelining?: number;
      /** One entry per request of a sequence; setupRequest, when given, rebuilds its request before every send. */
      requests?: Array<{ setupRequest?: (request: RawRequest) => RawRequest }>;
    }

    interface RawRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p99: number;
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      "2xx": number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
