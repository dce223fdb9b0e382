import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, Registry } from "prom-client";
import type { MetricsSource } from "../metrics/answer-scrape.ts";

/** prom-client's messages: workers answer them (src/metrics/metrics-registry.ts makes them able to). */
const REQUEST = "prom-client:getMetricsReq";
const RESPONSE = "prom-client:getMetricsRes";
/** A worker that has not answered by then is left out of this scrape rather than failing it. */
const ANSWER_WITHIN_MS = 3_000;

interface Gathering {
  /** One entry per registry that answered: its getMetricsAsJSON() list. */
  responses: object[];
  waiting: Set<number>;
  finish: () => void;
}

/**
 * The primary's view of every worker's metrics, summed per label set by prom-client's aggregation (each
 * worker's series carry its `worker` label, so they stay apart), plus the primary's own registry.
 * prom-client's AggregatorRegistry.clusterMetrics() asks every connected worker, including one still
 * starting that cannot answer yet, and then fails the whole scrape after 5 s; this asks only the workers
 * that listen, and a worker that dies mid-scrape only leaves its own series out.
 */
export class WorkerMetrics implements MetricsSource {
  private readonly own: Registry;
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly #gatherings = new Map<number, Gathering>();
  readonly #listening = new Set<number>();
  #nextId = 0;

  constructor(own: Registry) {
    this.own = own;
    cluster.on("listening", (worker) => this.#listening.add(worker.id));
    cluster.on("exit", (worker) => this.#answered(worker, undefined));
    cluster.on("message", (worker, message: { type?: string; requestId?: number; metrics?: object[] }) => {
      if (message?.type === RESPONSE) this.#answered(worker, message);
    });
  }

  async metrics(): Promise<string> {
    const requestId = this.#nextId++;
    const workers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && this.#listening.has(w.id) && w.isConnected(),
    );
    const responses: object[] = [];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), ANSWER_WITHIN_MS);
      const finish = () => {
        clearTimeout(timer);
        this.#gatherings.delete(requestId);
        resolve();
      };
      this.#gatherings.set(requestId, { responses, waiting: new Set(workers.map((w) => w.id)), finish });
      for (const worker of workers) worker.send({ type: REQUEST, requestId });
      if (workers.length === 0) finish();
    });
    const workersText = responses.length === 0 ? "" : await AggregatorRegistry.aggregate(responses).metrics();
    return workersText + (await this.own.metrics());
  }

  /** A worker's answer (or its exit, with no answer) to the gathering it was part of. */
  #answered(worker: Worker, message: { requestId?: number; metrics?: object[] } | undefined): void {
    if (message === undefined) this.#listening.delete(worker.id);
    const gatherings = message === undefined ? [...this.#gatherings.values()] : [this.#gatherings.get(message.requestId ?? -1)];
    for (const gathering of gatherings) {
      if (!gathering?.waiting.delete(worker.id)) continue;
      if (message?.metrics) gathering.responses.push(...message.metrics);
      if (gathering.waiting.size === 0) gathering.finish();
    }
  }
}
