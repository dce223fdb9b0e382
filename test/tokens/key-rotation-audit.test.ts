/**
 * The provider records each scheduled key lifecycle step in the audit trail (key.rotated, by: schedule),
 * through the KeyManager's onRotated: a real provider whose clock is moved past rotation.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { SIGNING_ALGS } from "../../src/crypto/signing-alg.ts";

const DAY = 86_400_000;
let p: TestProvider;
let offset = 0;
const events: AuditEvent[] = [];
beforeAll(async () => {
  p = await startTestProvider({ clock: () => Date.now() + offset });
  p.provider.audit.subscribe((event) => events.push(event));
});
afterAll(() => p?.close());

it("records key.rotated for the next key announced and for the promotion of each algorithm, with by: schedule", async () => {
  const first = SIGNING_ALGS.map((alg) => p.provider.keys.keys.signingKey(alg).kid);
  offset = 89 * DAY; // the demo's rotate_every is 90d, announce_for 1d: a next key of each algorithm is due
  await p.provider.keys.sync();
  const next = p.provider.keys.keys.jwks.keys.map((k) => k.kid).filter((kid) => !first.includes(kid));
  expect(next).toHaveLength(3);
  expect(events).toEqual(next.map((kid) => ({ type: "key.rotated", kid, status: "next", by: "schedule" })));

  offset = 90 * DAY;
  await p.provider.keys.sync();
  expect(SIGNING_ALGS.map((alg) => p.provider.keys.keys.signingKey(alg).kid)).toEqual(next);
  expect(events.slice(3)).toEqual(
    expect.arrayContaining([
      ...next.map((kid) => ({ type: "key.rotated", kid, status: "current", by: "schedule" })),
      ...first.map((kid) => ({ type: "key.rotated", kid, status: "retired", by: "schedule" })),
    ]),
  );
  expect(events).toHaveLength(9);
});
