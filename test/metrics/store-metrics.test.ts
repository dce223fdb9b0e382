import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { storeMetrics } from "../../src/metrics/store-metrics.ts";
import { createOperationRunner } from "../../src/stores/store-operation.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { parsePrometheusText, total } from "../support/prometheus-text.ts";

describe("store operation metrics", () => {
  it("times every operation the runner runs and counts the ones that fail, by operation and kind", async () => {
    const registry = new Registry();
    const run = createOperationRunner({
      backend: "redis",
      logger: { error() {}, warn() {}, info() {} },
      isClosed: () => false,
      observe: storeMetrics(registry),
    });
    await run("get", "codes", async () => "value");
    await run("get", "codes", async () => undefined);
    await expect(run("take", "refreshTokens", async () => Promise.reject(new Error("ECONNREFUSED")))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await run("ping", undefined, async () => "PONG");
    const samples = parsePrometheusText(await registry.metrics());
    expect(total(samples, "portcullis_store_operation_duration_seconds_count", { op: "get", kind: "codes" })).toBe(2);
    expect(total(samples, "portcullis_store_operation_duration_seconds_count", { op: "take", kind: "refreshTokens" })).toBe(1);
    expect(total(samples, "portcullis_store_operation_duration_seconds_count", { op: "ping", kind: "none" })).toBe(1);
    expect(total(samples, "portcullis_store_operation_errors_total", { op: "take", kind: "refreshTokens" })).toBe(1);
    expect(total(samples, "portcullis_store_operation_errors_total")).toBe(1);
  });
});
