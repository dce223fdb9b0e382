import { describe, expect, it } from "vitest";
import { RestartBackoff } from "../../src/cluster/restart-backoff.ts";

describe("worker restart backoff", () => {
  it("doubles while replacements die young, up to 30 s, and starts over after a worker that ran a while", () => {
    const backoff = new RestartBackoff();
    const young = Array.from({ length: 9 }, () => backoff.next(100));
    expect(young).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(backoff.next(60_000)).toBe(500);
    expect(backoff.next(10)).toBe(1000);
  });
});
