import { Counter, Histogram, type Registry } from "prom-client";
import type { OperationObserver } from "../stores/store-operation.ts";

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Store operation latency and failures by operation and record kind (both fixed by the code), as the
 * observer every backend's operation runner calls (src/stores/store-operation.ts).
 */
export function storeMetrics(registry: Registry): OperationObserver {
  const duration = new Histogram({
    name: "portcullis_store_operation_duration_seconds",
    help: "Store operations by operation (get, set, take, add, increment, ping) and record kind, with their duration (failed ones included)",
    labelNames: ["op", "kind"],
    buckets: BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: "portcullis_store_operation_errors_total",
    help: "Store operations that failed (store unreachable, timed out, refused): each answered 503",
    labelNames: ["op", "kind"],
    registers: [registry],
  });
  return (op, kind, ms, failed) => {
    const labels = { op, kind: kind ?? "none" };
    duration.observe(labels, ms / 1000);
    if (failed) errors.inc(labels);
  };
}
