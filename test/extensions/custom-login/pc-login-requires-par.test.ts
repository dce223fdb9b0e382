import { afterAll, beforeAll, expect, it } from "vitest";
import type { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import { redeemCode } from "../../support/code-grant.ts";
import { loadLoginJs, pcLogin, scan, writeStatus } from "../../support/custom-login.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { enrolledPhone } from "../../trusted-app/trusted-app-support.ts";

/**
 * A PC client that requires pushed authorization requests (RFC 9126 §6) gets no login from the custom
 * QR-code login, whose PC side is a plain request the page's script makes: the scan and the mobile side
 * (another client) work as ever, and the PC login is refused at its redirect URI, with no code.
 */
const CHANNEL = { id: "demo-channel", secret: "demo-channel-secret", select: "http://localhost:4100/channel/select" } as const;
const FOURTH_PARTY_CALLBACK = "http://localhost:3006/callback";

let p: TestProvider;
let phone: TrustedAppClient;

beforeAll(async () => {
  // demo-fourth-party is clients.yaml's ninth client.
  p = await startTestProvider({ edits: { "clients.yaml": { "clients.8.require_pushed_authorization_requests": true } } });
  phone = await enrolledPhone(p, "E10001");
});
afterAll(() => p.close());

it("refuses the PC login of a client that requires pushed requests, after a scan and status 10", async () => {
  const session = await loadLoginJs(p, {
    clientId: CHANNEL.id,
    MobileRedirectUrl: CHANNEL.select,
    PCClientId: "demo-fourth-party",
    PCRedirectUrl: FOURTH_PARTY_CALLBACK,
    PCScope: "openid profile channel.login.scan",
    PCState: "pc-state",
  });
  const { params } = await scan(phone, session.qrUri);
  const tokens = await redeemCode(p, params.get("code")!, { redirect_uri: CHANNEL.select, code_verifier: undefined }, CHANNEL);
  expect(tokens.status, tokens.text).toBe(200);
  const written = await writeStatus(p, tokens.json!.access_token as string, { session_id: session.sessionId, status: 10, data: "d" });
  expect(written.json).toEqual({ status: 200, message: "OK" });

  const login = await pcLogin(session);
  expect(login.location?.origin + login.location!.pathname).toBe(FOURTH_PARTY_CALLBACK);
  expect(login.location!.searchParams.get("error")).toBe("access_denied");
  expect(login.location!.searchParams.get("error_description")).toContain("push");
  expect(login.location!.searchParams.get("code")).toBeNull();
});
