/**
 * The code store on every backend (two store instances — two provider nodes — on the network ones):
 * codes expire by the provider's clock, work once even when redeemed concurrently from two nodes,
 * are superseded by a re-send, and are kept only as HMACs.
 */
import smsPlugin from "../../flows/methods/sms/index.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../src/crypto/secret-box.ts";
import { CodeHasher } from "../../src/one-time-codes/code-hasher.ts";
import { OneTimeCodes, type CodeRecord, type CodeSlot } from "../../src/one-time-codes/one-time-codes.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { availableBackends } from "../support/backends.ts";

const KEY = "test-key-material-of-more-than-32-characters";
const LIFETIME = 5 * 60_000;

describe.each(availableBackends())("one-time codes on the $name store", ({ name, url }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-otc-"));
  const stores: Store[] = [];
  let now = Date.now();
  const clock = () => now;
  const nodes: OneTimeCodes[] = [];
  beforeAll(async () => {
    for (let i = 0; i < (name === "embedded" ? 1 : 2); i++) {
      const store = await createStore(url, { dataDir, logger: pino({ level: "silent" }) });
      // The code methods' kind, as the composition root declares it from their manifest.
      store.declare(smsPlugin.manifest.recordKinds);
      stores.push(store);
      nodes.push(new OneTimeCodes(store.namespace<CodeRecord>("oneTimeCodes"), clock, new CodeHasher(KEY), new SecretBox(KEY), LIFETIME));
    }
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let counter = 0;
  const slot = (): CodeSlot => ({ scope: "sms:login", sub: "E10001", challenge: `challenge-${name}-${++counter}` });
  const node = (i: number) => nodes[i % nodes.length]!;
  const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

  it("redeems a code once; the second redemption is refused", async () => {
    const s = slot();
    const code = await node(0).issue(s);
    expect(await node(1).redeem(s, code)).toEqual({ target: undefined });
    expect(await node(0).redeem(s, code)).toBeUndefined();
  });

  it("of 20 concurrent redemptions of the right code on two nodes, exactly one succeeds", async () => {
    const s = slot();
    const code = await node(0).issue(s);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => node(i).redeem(s, code)));
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  it("leaves the code usable after a wrong one (the attempt limit, not the code, bounds guessing)", async () => {
    const s = slot();
    const code = await node(0).issue(s);
    expect(await node(0).redeem(s, wrongOf(code))).toBeUndefined();
    expect(await node(1).redeem(s, code)).toBeDefined();
  });

  it("refuses a code once the provider's clock passes its five minutes, even while the store still holds it", async () => {
    const s = slot();
    const code = await node(0).issue(s);
    now += LIFETIME - 1;
    const stillValid = slot();
    const other = await node(0).issue(stillValid);
    now += 1;
    expect(await node(1).redeem(s, code)).toBeUndefined();
    expect(await node(1).redeem(stillValid, other)).toBeDefined(); // issued later: valid for its own 5 minutes
  });

  it("refuses a code superseded by a re-send, and accepts the new one", async () => {
    const s = slot();
    const first = await node(0).issue(s);
    let second = await node(1).issue(s);
    while (second === first) second = await node(1).issue(s); // one in a million: the same digits again
    expect(await node(0).redeem(s, first)).toBeUndefined();
    expect(await node(0).redeem(s, second)).toBeDefined();
  });

  it("keys codes by scope, user and challenge: a code does not work in another slot", async () => {
    const s = slot();
    const code = await node(0).issue(s);
    expect(await node(0).redeem({ ...s, sub: "E10002" }, code)).toBeUndefined();
    expect(await node(0).redeem({ ...s, challenge: "another" }, code)).toBeUndefined();
    expect(await node(0).redeem({ ...s, scope: "email:login" }, code)).toBeUndefined();
    expect(await node(0).redeem(s, code)).toBeDefined();
  });

  it("stores neither the code nor the target in clear, and gives the target back on redemption", async () => {
    const s = slot();
    const code = await node(0).issue(s, "+447700900123");
    // Read the raw records of the namespace through a second key-unaware view: nothing but the HMAC and a sealed target.
    const raw = JSON.stringify(await peekAll(stores[0]!, s));
    expect(raw).not.toContain(code);
    expect(raw).not.toContain("447700900123");
    expect(await node(0).redeem(s, code)).toEqual({ target: "+447700900123" });
  });

  it("discards a slot's code", async () => {
    const s = slot();
    const code = await node(0).issue(s);
    await node(1).discard(s);
    expect(await node(0).redeem(s, code)).toBeUndefined();
  });

  it("refuses malformed input without touching the store", async () => {
    const s = slot();
    await node(0).issue(s);
    for (const bad of ["", "abcdef", "1234567", undefined]) expect(await node(0).redeem(s, bad)).toBeUndefined();
  });

  /** The record of a slot, found the way the class keys it (scope in clear, user and challenge hashed). */
  async function peekAll(store: Store, s: CodeSlot): Promise<unknown> {
    const { storeKeyHash } = await import("../../src/crypto/store-key-hash.ts");
    return store.namespace("oneTimeCodes").get(`${s.scope}:${storeKeyHash(`${s.sub}\n${s.challenge}`)}`);
  }
});

describe("the code HMAC", () => {
  it("depends on the key, the record and the code", () => {
    const a = new CodeHasher(KEY);
    const b = new CodeHasher(`${KEY}-other`);
    expect(a.hash("r1", "123456")).toBe(a.hash("r1", "123456"));
    expect(a.hash("r1", "123456")).not.toBe(b.hash("r1", "123456"));
    expect(a.hash("r1", "123456")).not.toBe(a.hash("r2", "123456"));
    expect(a.hash("r1", "123456")).not.toBe(a.hash("r1", "123457"));
  });
});
