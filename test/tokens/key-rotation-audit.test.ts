/**
 * The provider records each scheduled key lifecycle step in the audit trail (key.rotated, by: schedule),
 * through the KeyManager's onRotated: a real provider whose clock is moved past rotation.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

const DAY = 86_400_000;
let p: TestProvider;
let offset = 0;
const events: AuditEvent[] = [];
beforeAll(async () => {
  p = await startTestProvider({ clock: () => Date.now() + offset });
  p.provider.audit.subscribe((event) => events.push(event));
});
afterAll(() => p?.close());

it("records key.rotated for the next key announced and for the promotion, with by: schedule", async () => {
  const first = p.provider.keys.keys.signing.kid;
  offset = 89 * DAY; // the demo's rotate_every is 90d, announce_for 1d: a next key is due
  await p.provider.keys.sync();
  const next = p.provider.keys.keys.jwks.keys.map((k) => k.kid).find((kid) => kid !== first)!;
  expect(events).toEqual([{ type: "key.rotated", kid: next, status: "next", by: "schedule" }]);

  offset = 90 * DAY;
  await p.provider.keys.sync();
  expect(p.provider.keys.keys.signing.kid).toBe(next);
  expect(events.slice(1)).toEqual(
    expect.arrayContaining([
      { type: "key.rotated", kid: next, status: "current", by: "schedule" },
      { type: "key.rotated", kid: first, status: "retired", by: "schedule" },
    ]),
  );
  expect(events).toHaveLength(3);
});
