import { describe, expect, it } from "vitest";
import { RetainedFlows } from "../../src/runtime/retained-flows.ts";
import type { FlowCatalog, RunnableFlow } from "../../src/runtime/login-flows.ts";

/** A catalog holding one flow `id` with definition hash `hash`. */
const catalog = (id: string, hash: string) =>
  ({ get: (wanted: string) => (wanted === id ? ({ id, hash } as RunnableFlow) : undefined) }) as unknown as FlowCatalog;

describe("RetainedFlows", () => {
  it("finds a replaced flow version by id and hash for the interaction lifetime, then forgets it", () => {
    let now = 1_000;
    const retained = new RetainedFlows(() => now, 600_000);
    retained.retain(catalog("default", "v1"));
    retained.retain(catalog("default", "v2"));
    expect(retained.find("default", "v1")?.hash).toBe("v1");
    expect(retained.find("default", "v2")?.hash).toBe("v2");
    // A version this node never had (it started after the reload): nothing, so the interaction restarts.
    expect(retained.find("default", "v0")).toBeUndefined();
    expect(retained.find("login_type.X", "v1")).toBeUndefined();
    now += 600_000;
    expect(retained.find("default", "v1")).toBeUndefined();
  });
});
