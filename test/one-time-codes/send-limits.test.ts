import { describe, expect, it } from "vitest";
import { SendLimits } from "../../src/one-time-codes/send-limits.ts";
import { embeddedStoreForSuite } from "../support/embedded-test-store.ts";

describe("limits on sending codes", () => {
  const store = embeddedStoreForSuite("portcullis-limits-");

  let id = 0;
  const limits = (policy: Partial<{ resendAfterMs: number; perAccount: number; perAddress: number }> = {}) =>
    new SendLimits(store().namespace<number>("rateLimits"), `m${++id}`, {
      resendAfterMs: 30_000,
      perAccount: 100,
      perAddress: 100,
      windowMs: 3_600_000,
      ...policy,
    });
  const slot = (challenge: string, sub = "E10001") => ({ scope: "sms:login", sub, challenge });

  it("lets one send per slot through until the re-send wait has passed", async () => {
    const l = limits({ resendAfterMs: 150 });
    expect(await l.claim(slot("c1"), "192.0.2.1")).toBe("ok");
    expect(await l.claim(slot("c1"), "192.0.2.1")).toBe("too_soon");
    expect(await l.claim(slot("c2"), "192.0.2.1")).toBe("ok"); // another login of the same user
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await l.claim(slot("c1"), "192.0.2.1")).toBe("ok");
  });

  it("of 20 concurrent re-sends of one slot, one goes out", async () => {
    const l = limits();
    const results = await Promise.all(Array.from({ length: 20 }, () => l.claim(slot("race"), "192.0.2.1")));
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r === "too_soon")).toHaveLength(19);
  });

  it("limits sends per account, whatever address they come from", async () => {
    const l = limits({ perAccount: 3 });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await l.claim(slot(`a${i}`), `198.51.100.${i}`));
    expect(results).toEqual(["ok", "ok", "ok", "limited", "limited"]);
    expect(await l.claim(slot("a9", "E10002"), "198.51.100.9")).toBe("ok");
  });

  it("limits sends per client address, whatever account they are for", async () => {
    const l = limits({ perAddress: 2 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await l.claim(slot(`b${i}`, `E2000${i}`), "203.0.113.7"));
    expect(results).toEqual(["ok", "ok", "limited", "limited"]);
    expect(await l.claim(slot("b9", "E29999"), "203.0.113.8")).toBe("ok");
  });

  it("lets a failed send be retried at once, but keeps its budget spent", async () => {
    const l = limits({ perAccount: 2 });
    expect(await l.claim(slot("f"), "192.0.2.1")).toBe("ok");
    await l.release(slot("f"));
    expect(await l.claim(slot("f"), "192.0.2.1")).toBe("ok");
    await l.release(slot("f"));
    expect(await l.claim(slot("f"), "192.0.2.1")).toBe("limited");
  });
});
