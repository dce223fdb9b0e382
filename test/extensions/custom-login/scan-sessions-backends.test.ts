/**
 * Scan sessions on every store backend (two store instances — two provider nodes — on the network
 * ones): a session is created, scanned and written through either node, and of many concurrent scans
 * or PC logins exactly one is applied, so a session logs the PC in once however the nodes interleave.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScanSessions, type ScanChange } from "../../../src/extensions/custom-login/scan-sessions.ts";
import { displayState } from "../../../src/extensions/custom-login/scan-progress.ts";
import type { ScanPlan } from "../../../src/extensions/custom-login/scan-session.ts";
import { createStore } from "../../../src/stores/create-store.ts";
import type { Store } from "../../../src/stores/store.ts";
import { CUSTOM_LOGIN_MANIFEST } from "../../../src/extensions/custom-login/manifest.ts";
import { availableBackends } from "../../support/backends.ts";

const times = { qrLifetimeMs: 120_000, operationLifetimeMs: 600_000 };
const plan: ScanPlan = {
  mobile: { clientId: "demo-web", redirectUri: "http://localhost:3005/custom-login/mobile", scopes: ["openid", "acme.ext.custom_scan"] },
  pc: { clientId: "demo-web", redirectUri: "http://localhost:3005/custom-login/pc", scopes: ["openid", "profile", "acme"], state: "pc" },
};
const at = () => Date.now();

describe.each(availableBackends())("scan sessions on the $name store", ({ name, url }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-scans-"));
  const stores: Store[] = [];
  const nodes: ScanSessions[] = [];
  beforeAll(async () => {
    for (let i = 0; i < (name === "embedded" ? 1 : 2); i++) {
      const store = await createStore(url, { dataDir, logger: pino({ level: "silent" }) });
      // What the composition root does for an installed extension: its manifest's record kinds.
      store.declare(CUSTOM_LOGIN_MANIFEST.recordKinds);
      stores.push(store);
      nodes.push(new ScanSessions(store, () => Date.now()));
    }
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const node = (i: number) => nodes[i % nodes.length]!;

  /** A session alice scanned and finished (status 10), ready for its PC login. */
  async function approved(data: string) {
    const { session, binding } = await node(0).create(plan, "en", times);
    expect((await node(1).phone(session.id, { type: "SCAN", scanner: "E10001", at: at() }, times)).outcome).toBe("applied");
    expect((await node(0).phone(session.id, { type: "WRITE_AUDITING", auditor: "E10002", at: at() })).outcome).toBe("applied");
    expect((await node(1).phone(session.id, { type: "WRITE_FINISHED", data, at: at() })).outcome).toBe("applied");
    return { id: session.id, binding };
  }

  it("creates, scans and writes a session through either node", async () => {
    const { id, binding } = await approved("the data|with a bar");
    const seen = (await node(0).find(id))!;
    expect(seen.phone.context).toMatchObject({ scanner: "E10001", auditor: "E10002", data: "the data|with a bar" });
    expect(displayState(seen)).toBe("approved");
    expect(node(1).isBound(seen, binding)).toBe(true);
    expect(
      node(1).isBound(
        seen,
        binding.replace(/.$/, (c) => (c === "A" ? "B" : "A")),
      ),
    ).toBe(false);
    // A write after the outcome is rejected and changes nothing.
    expect((await node(1).phone(id, { type: "WRITE_REFUSED", at: at() })).outcome).toBe("rejected");
    expect(displayState((await node(1).find(id))!)).toBe("approved");
    await node(0).end(id);
    expect(await node(1).find(id)).toBeUndefined();
    expect((await node(1).logIn(id, binding)).outcome).toBe("missing");
  });

  it("applies exactly one of 10 concurrent PC logins, and none with a wrong binding", async () => {
    for (let run = 0; run < 5; run++) {
      const { id, binding } = await approved(`run ${run}`);
      const stranger = await Promise.all(Array.from({ length: 4 }, (_, i) => node(i).logIn(id, "A".repeat(43))));
      expect(stranger.map((c) => c.outcome)).toEqual(Array(4).fill("rejected"));
      const logins = await Promise.all(Array.from({ length: 10 }, (_, i) => node(i).logIn(id, binding)));
      expect(
        logins.filter((c) => c.outcome === "applied"),
        `run ${run}`,
      ).toHaveLength(1);
      expect(logins.filter((c) => c.outcome === "rejected")).toHaveLength(9);
      expect(displayState((await node(run).find(id))!)).toBe("done");
    }
  });

  it("never fails under a hammering writer: 40 concurrent auditor writes are each applied or contended", async () => {
    const { session } = await node(0).create(plan, "en", times);
    await node(0).phone(session.id, { type: "SCAN", scanner: "E10001", at: at() }, times);
    const writes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => node(i).phone(session.id, { type: "WRITE_AUDITING", auditor: `E${i}`, at: at() })),
    );
    expect(writes.filter((c) => c.outcome !== "applied" && c.outcome !== "contended")).toEqual([]);
    const applied = writes.flatMap((c) => (c.outcome === "applied" ? [c.session] : []));
    expect(applied.length).toBeGreaterThan(0);
    // The record is the last applied write, whole.
    const final = (await node(1).find(session.id))!;
    expect(final.version).toBe(1 + applied.length);
    expect(applied.find((s) => s.version === final.version)?.phone.context.auditor).toBe(final.phone.context.auditor);
  });

  it("applies exactly one of 10 concurrent scans, and one outcome of 10 and -10 racing", async () => {
    for (let run = 0; run < 5; run++) {
      const { session } = await node(0).create(plan, "en", times);
      const scans = await Promise.all(
        Array.from({ length: 10 }, (_, i) => node(i).phone(session.id, { type: "SCAN", scanner: `E1000${i}`, at: at() }, times)),
      );
      const applied = scans.filter((c): c is Extract<ScanChange, { outcome: "applied" }> => c.outcome === "applied");
      expect(applied, `run ${run}`).toHaveLength(1);
      expect((await node(1).find(session.id))!.phone.context.scanner).toBe(applied[0]!.session.phone.context.scanner);
      const outcomes = await Promise.all([
        node(0).phone(session.id, { type: "WRITE_FINISHED", data: "yes", at: at() }),
        node(1).phone(session.id, { type: "WRITE_REFUSED", at: at() }),
        node(0).phone(session.id, { type: "WRITE_REFUSED", at: at() }),
        node(1).phone(session.id, { type: "WRITE_FINISHED", data: "also yes", at: at() }),
      ]);
      expect(outcomes.filter((c) => c.outcome === "applied")).toHaveLength(1);
      const final = (await node(run).find(session.id))!;
      expect(["approved", "refused"]).toContain(displayState(final));
    }
  });
});
