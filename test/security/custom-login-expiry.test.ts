import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";
import {
  loadLoginJs,
  MOBILE_REDIRECT,
  PC_REDIRECT,
  pcLogin,
  scan,
  scannedSession,
  scanState,
  writeStatus,
} from "../support/custom-login.ts";

/**
 * The custom login's lifetimes on a clock the test moves (the provider's and the phone's alike): a QR
 * not scanned within qr_lifetime (2 minutes in the demo config) cannot be scanned, and an approved
 * session not used within operation_lifetime (10 minutes) can no longer log the PC in; an expired
 * access token cannot write the status.
 */
let p: TestProvider;
let alice: TrustedAppClient;
let now = Date.now();
const clock = () => now;
const MINUTE = 60_000;

beforeAll(async () => {
  p = await startTestProvider({ clock, edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000 } } });
  alice = await enrolledPhone(p, "E10001", "Alice's phone", { clock });
});
afterAll(() => p.close());

describe("lifetimes", () => {
  it("a QR past qr_lifetime shows expired and cannot be scanned", async () => {
    const session = await loadLoginJs(p, { PCState: "pc" });
    now += 2 * MINUTE - 1_000;
    expect(await scanState(session)).toBe("waiting");
    now += 2_000;
    expect(await scanState(session)).toBe("expired");
    const { location, params } = await scan(alice, session.qrUri);
    expect(`${new URL(location).origin}${new URL(location).pathname}`).toBe(MOBILE_REDIRECT);
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("code")).toBeNull();
    expect(await scanState(session)).toBe("expired");
  });

  it("an approved session unused past operation_lifetime no longer logs the PC in", async () => {
    const { session, tokens } = await scannedSession(p, alice, { PCState: "pc" });
    // The operation's lifetime starts at the scan, not at the QR's creation.
    now += 3 * MINUTE;
    expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "late" })).status).toBe(200);
    expect(await scanState(session)).toBe("approved");
    now += 7 * MINUTE + 1_000;
    expect(await scanState(session)).toBe("expired");
    const login = await pcLogin(session);
    expect(`${login.location!.origin}${login.location!.pathname}`).toBe(PC_REDIRECT);
    expect(login.location!.searchParams.get("error")).toBe("access_denied");
    expect(login.location!.searchParams.get("code")).toBeNull();
  });

  it("a write after operation_lifetime is refused with 400", async () => {
    const { session, tokens } = await scannedSession(p, alice);
    now += 10 * MINUTE + 1_000;
    expect(await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "x" })).toMatchObject({
      status: 400,
      json: { status: 400 },
    });
  });

  it("the scan's own token, once expired, is refused with 401", async () => {
    const { session, tokens } = await scannedSession(p, alice);
    now += 60 * MINUTE + 1_000;
    expect(await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "x" })).toMatchObject({
      status: 401,
      json: { status: 401 },
    });
  });
});
