import { afterAll, beforeAll, expect, it } from "vitest";
import { StoreUnavailableError } from "../../../src/stores/store-unavailable-error.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { embeddedStoreForSuite } from "../../support/embedded-test-store.ts";
import { FaultyStore } from "../../support/faulty-store.ts";
import { enrolledPhone } from "../../trusted-app/trusted-app-support.ts";
import { scannedSession, scanState, writeStatus } from "../../support/custom-login.ts";

/**
 * The write-status table's last row (SPEC Errors: 501 unknown error): a write that fails on the
 * provider's side in a way nobody planned for answers body status 501 and nothing of the failure (no
 * message, no stack), and is logged for the operator. A store outage is the same row, but HTTP 503 and
 * "try again". Either way the session is left as it was, and the write goes through once mended.
 */
const embedded = embeddedStoreForSuite("portcullis-write-status-failure-");
let store: FaultyStore;
let p: TestProvider;
beforeAll(async () => {
  store = new FaultyStore(embedded());
  p = await startTestProvider({ store });
});
afterAll(() => p?.close());

const SECRET_DETAIL = "scan record writer broke at /srv/portcullis/src/stores/scan.ts:42";

it("answers an unexpected failure with body status 501, HTTP 500, no detail, logged once", async () => {
  const { session, tokens } = await scannedSession(p, await enrolledPhone(p));
  store.breakWrites("customLoginScans", new TypeError(SECRET_DETAIL));
  let res;
  try {
    res = await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "d" });
  } finally {
    store.mend();
  }
  expect(res.status).toBe(500);
  expect(res.json).toEqual({ status: 501, message: "unknown error" });
  expect(res.text).not.toContain("scan.ts");
  expect(res.text).not.toMatch(/TypeError|\bat /);
  const errors = p.logs.filter((line) => line.level === 50);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({
    msg: "unhandled error",
    path: "/Acme/CustomLogin/WriteStatusOperation",
    err: { message: SECRET_DETAIL },
  });
  expect(await scanState(session)).toBe("scanned");
  expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "d" })).json).toEqual({
    status: 200,
    message: "OK",
  });
});

it("answers a store outage with body status 501 too, as HTTP 503: try again", async () => {
  const { session, tokens } = await scannedSession(p, await enrolledPhone(p));
  store.breakWrites("customLoginScans", new StoreUnavailableError("embedded"));
  let res;
  try {
    res = await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: -10, data: "" });
  } finally {
    store.mend();
  }
  expect(res.status).toBe(503);
  expect(res.json).toEqual({ status: 501, message: "temporarily unavailable, try again" });
  expect(await scanState(session)).toBe("scanned");
});
