import { AggregatorRegistry, collectDefaultMetrics, Registry, type PrometheusContentType } from "prom-client";

/**
 * The registry of one provider process, with Node's own metrics (event-loop lag, heap, CPU, handles).
 * In a cluster worker it is an AggregatorRegistry, which answers the primary's requests for this process's
 * metrics over the cluster's IPC channel, and every series carries a `worker` label: the primary's sum
 * then keeps the workers apart (sum them in PromQL), and a scrape shows that every worker serves.
 */
export function createMetricsRegistry(worker: number | undefined): Registry {
  if (worker === undefined) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    return registry;
  }
  const registry = new AggregatorRegistry<PrometheusContentType>();
  registry.setDefaultLabels({ worker: String(worker) });
  AggregatorRegistry.setRegistries([registry]);
  collectDefaultMetrics({ register: registry });
  return registry;
}
