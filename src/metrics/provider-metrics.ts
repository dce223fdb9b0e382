import type { Registry } from "prom-client";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { OperationObserver } from "../stores/store-operation.ts";
import { countAuditEvents } from "./audit-metrics.ts";
import { HttpMetrics } from "./http-metrics.ts";
import { createMetricsRegistry } from "./metrics-registry.ts";
import { storeMetrics } from "./store-metrics.ts";

/** One provider process's metrics: where the HTTP layer, the store and the audit trail report. */
export interface ProviderMetrics {
  readonly registry: Registry;
  readonly http: HttpMetrics;
  /** Passed to the store (createStore's `observe`). */
  readonly observeStore: OperationObserver;
  /** Counts logins and tokens from this trail; returns the function that stops. */
  countAudit(audit: AuditTrail): () => void;
}

/** `worker`: the cluster worker's id, when this process is one (its series are labelled with it). */
export function createProviderMetrics(options: { worker?: number | undefined } = {}): ProviderMetrics {
  const registry = createMetricsRegistry(options.worker);
  return {
    registry,
    http: new HttpMetrics(registry),
    observeStore: storeMetrics(registry),
    countAudit: (audit) => countAuditEvents(registry, audit),
  };
}
