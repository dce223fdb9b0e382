import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { editConfig, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";
import { PC_REDIRECT, pcLogin, scannedSession, writeStatus } from "../support/custom-login.ts";

/**
 * A client's minimum_acr holds for logins the provider never planned and for a minimum raised mid-login:
 * the custom QR-code login (an extension) proves one factor; once an operator demands 2fa of its client
 * (a reload after the phone's scan), the PC side gets unmet_authentication_requirements at its redirect
 * URI instead of a code.
 */
let p: TestProvider;
let alice: TrustedAppClient;

beforeAll(async () => {
  p = await startTestProvider({
    edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000 } },
  });
  alice = await enrolledPhone(p, "E10001");
}, 120_000);
afterAll(() => p?.close());

describe("the custom QR-code login for a client whose minimum_acr became 2fa", () => {
  it("answers unmet_authentication_requirements at the PC redirect URI, with no code", async () => {
    const scanned = await scannedSession(p, alice, { PCState: "pc-state" });
    const status = await writeStatus(p, scanned.tokens.access_token, { session_id: scanned.session.sessionId, status: 10, data: "d" });
    expect(status.status).toBe(200);
    // demo-web, the custom login's client, now demands two factors.
    editConfig(p.configDir, "clients.yaml", { "clients.0.minimum_acr": "2fa" });
    expect(await p.reload()).toMatchObject({ ok: true, errors: [] });
    const login = await pcLogin(scanned.session);
    expect(login.status, login.text).toBe(303);
    expect(`${login.location!.origin}${login.location!.pathname}`).toBe(PC_REDIRECT);
    expect(login.location!.searchParams.get("error")).toBe("unmet_authentication_requirements");
    expect(login.location!.searchParams.get("error_description")).toContain("minimum_acr");
    expect(login.location!.searchParams.get("code")).toBeNull();
  });
});
