import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";
import { codeTokens, redeemCode, refresh } from "../support/code-grant.ts";
import {
  DEMO_WEB,
  loadLoginJs,
  MOBILE_REDIRECT,
  mobileTokens,
  PC_REDIRECT,
  pcLogin,
  renew,
  scan,
  scannedSession,
  scanState,
  writeStatus,
} from "../support/custom-login.ts";

/**
 * The custom QR-code login attacked over real HTTP (issue 13): a browser without the page's binding
 * secret, a second or racing PC login, someone else's token writing the status, a session driven
 * backwards, a second phone, a tampered QR. The reference trusted app plays the phones.
 */
let p: TestProvider;
let alice: TrustedAppClient;
let bob: TrustedAppClient;

beforeAll(async () => {
  p = await startTestProvider({ edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000 } } });
  alice = await enrolledPhone(p, "E10001");
  bob = await enrolledPhone(p, "E10002", "Bob's phone");
});
afterAll(() => p.close());

const WRONG_BINDING = "A".repeat(43);

/** A session alice scanned and approved with status 10 and `data`: the PC side may log in now. */
async function approvedSession(data = "the data", params: Record<string, string | undefined> = { PCState: "pc-state" }) {
  const scanned = await scannedSession(p, alice, params);
  expect((await writeStatus(p, scanned.tokens.access_token, { session_id: scanned.session.sessionId, status: 10, data })).status).toBe(200);
  return scanned;
}

/** A refused PC login: access_denied at the PC redirect URI with the plain PCState, no code. */
function expectRefused(login: Awaited<ReturnType<typeof pcLogin>>, pcState: string | null = "pc-state") {
  expect(login.status, login.text).toBe(303);
  expect(`${login.location!.origin}${login.location!.pathname}`).toBe(PC_REDIRECT);
  expect(login.location!.searchParams.get("error")).toBe("access_denied");
  expect(login.location!.searchParams.get("state")).toBe(pcState);
  expect(login.location!.searchParams.get("code")).toBeNull();
}

describe("another browser, without the page's binding secret", () => {
  it("Status with a wrong or missing binding looks expired, whatever the session's state", async () => {
    const { session, tokens } = await scannedSession(p, alice);
    for (const binding of [WRONG_BINDING, "", session.binding.slice(0, 42), `${session.binding}x`])
      expect(await scanState(session, binding)).toBe("expired");
    const res = await fetch(`${session.statusUrl}?${new URLSearchParams({ session_id: session.sessionId })}`);
    expect(await res.json()).toEqual({ state: "expired" });
    // An unknown session says the same.
    expect(await scanState({ ...session, sessionId: WRONG_BINDING })).toBe("expired");
    await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "d" });
    expect(await scanState(session, WRONG_BINDING)).toBe("expired");
    expect(await scanState(session)).toBe("approved");
  });

  it("Renew with a wrong or missing binding is refused and the session lives on", async () => {
    const session = await loadLoginJs(p);
    expect((await renew(session, WRONG_BINDING)).json).toMatchObject({ error: "invalid_request" });
    const missing = await postForm(session.renewUrl, { session_id: session.sessionId });
    expect(missing.status).toBe(400);
    expect(await scanState(session)).toBe("waiting");
  });

  it("the PC login with a wrong or missing binding is access_denied and does not spend the session", async () => {
    const { session } = await approvedSession("kept");
    expectRefused(await pcLogin(session, WRONG_BINDING));
    expectRefused(await pcLogin(session, ""));
    const noBinding = await fetch(session.authorizeUrl, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ session_id: session.sessionId, ...session.pcAuthorize }),
    });
    expect(new URL(noBinding.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
    expect(await scanState(session)).toBe("approved");
    const login = await pcLogin(session);
    expect(login.location!.searchParams.get("state")).toBe("kept|pc-state");
    expect(login.location!.searchParams.get("code")).toBeTruthy();
  });
});

describe("a PC login that changes the declared request", () => {
  it("is an error page without a redirect (the QR's session id must not reveal PCState), and spends nothing", async () => {
    const { session } = await approvedSession("kept");
    const changes: Array<Record<string, string>> = [
      { state: "other" },
      { scope: "openid" },
      { redirect_uri: "http://localhost:3001/callback" },
      { client_id: "demo-portal" },
      { response_type: "token" },
    ];
    for (const change of changes) {
      const res = await fetch(session.authorizeUrl, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          session_id: session.sessionId,
          binding: WRONG_BINDING,
          ...session.pcAuthorize,
          state: "pc-state",
          ...change,
        }),
      });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).not.toContain("pc-state");
    }
    expect(await scanState(session)).toBe("approved");
    expect((await pcLogin(session)).location!.searchParams.get("state")).toBe("kept|pc-state");
  });
});

describe("one PC login per session", () => {
  it("refuses a second PC login, also with the right binding", async () => {
    const { session } = await approvedSession();
    expect((await pcLogin(session)).location!.searchParams.get("code")).toBeTruthy();
    expectRefused(await pcLogin(session));
    expect(await scanState(session)).toBe("done");
  });

  it("gives exactly one code to 10 PC logins racing", async () => {
    for (let run = 0; run < 3; run++) {
      const { session } = await approvedSession(`run ${run}`);
      const logins = await Promise.all(Array.from({ length: 10 }, () => pcLogin(session)));
      const codes = logins.map((l) => l.location!.searchParams.get("code")).filter((c) => c !== null);
      expect(codes, `run ${run}`).toHaveLength(1);
      expect(logins.filter((l) => l.location!.searchParams.get("error") === "access_denied")).toHaveLength(9);
      const res = await redeemCode(p, codes[0]!, { redirect_uri: PC_REDIRECT, code_verifier: undefined }, DEMO_WEB);
      expect(res.status, res.text).toBe(200);
    }
  });
});

describe("only the scan's own token writes the status", () => {
  const tokenRefused = { status: 401, json: { status: 401 } };

  it("refuses bob's token from his own scan of another session", async () => {
    const { session } = await scannedSession(p, alice);
    const bobs = await scannedSession(p, bob);
    const res = await writeStatus(p, bobs.tokens.access_token, { session_id: session.sessionId, status: 10, data: "bob's" });
    expect(res).toMatchObject(tokenRefused);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="portcullis"');
    expect(await scanState(session)).toBe("scanned");
  });

  it("refuses tokens that claim the session but are not the scan's: another user, another client", async () => {
    const { session } = await scannedSession(p, alice);
    const claims = { accessTokenClaims: { custom_scan_sid: session.sessionId }, codeChallenge: undefined, codeChallengeMethod: undefined };
    const scopes = ["openid", "acme.ext.custom_scan"];
    const bobsForged = await codeTokens(
      p,
      { ...claims, sub: "E10002", redirectUri: MOBILE_REDIRECT, scopes },
      { redirect_uri: MOBILE_REDIRECT, code_verifier: undefined },
    );
    const channel = { id: "demo-channel", secret: "demo-channel-secret" };
    const channelCode = await p.provider.codes.issue(
      {
        ...claims,
        clientId: channel.id,
        redirectUri: "http://localhost:4100/channel/select",
        scopes,
        sub: "E10001",
        authTime: Math.floor(Date.now() / 1000),
        amr: ["qrcode"],
        acr: "1fa",
      },
      300,
    );
    const channelTokens = await redeemCode(
      p,
      channelCode,
      { redirect_uri: "http://localhost:4100/channel/select", code_verifier: undefined },
      channel,
    );
    expect(channelTokens.status, channelTokens.text).toBe(200);
    for (const token of [bobsForged.access_token, (channelTokens.json as { access_token: string }).access_token]) {
      expect(decodeJwt(token).custom_scan_sid).toBe(session.sessionId);
      expect(await writeStatus(p, token, { session_id: session.sessionId, status: 10, data: "forged" })).toMatchObject(tokenRefused);
    }
    expect(await scanState(session)).toBe("scanned");
  });

  it("refuses alice's other tokens: without the scope, without the claim, refreshed from the scan's token", async () => {
    const { session, tokens } = await scannedSession(p, alice, { MobileScope: "openid offline_access" });
    const withoutScope = await codeTokens(
      p,
      {
        accessTokenClaims: { custom_scan_sid: session.sessionId },
        redirectUri: MOBILE_REDIRECT,
        scopes: ["openid", "acme"],
        codeChallenge: undefined,
        codeChallengeMethod: undefined,
      },
      { redirect_uri: MOBILE_REDIRECT, code_verifier: undefined },
    );
    const withoutClaim = await codeTokens(
      p,
      {
        redirectUri: MOBILE_REDIRECT,
        scopes: ["openid", "acme.ext.custom_scan"],
        codeChallenge: undefined,
        codeChallengeMethod: undefined,
      },
      { redirect_uri: MOBILE_REDIRECT, code_verifier: undefined },
    );
    const refreshToken = (tokens as { refresh_token?: string }).refresh_token;
    expect(refreshToken).toBeTruthy();
    const refreshed = await refresh(p, refreshToken!, {}, DEMO_WEB);
    expect(refreshed.status, refreshed.text).toBe(200);
    const others = [withoutScope.access_token, withoutClaim.access_token, (refreshed.json as { access_token: string }).access_token];
    for (const token of others)
      expect(await writeStatus(p, token, { session_id: session.sessionId, status: 10, data: "other" })).toMatchObject(tokenRefused);
    expect(await scanState(session)).toBe("scanned");
  });

  it("refuses a client_credentials token, a garbled or tampered token and no token at all", async () => {
    const { session, tokens } = await scannedSession(p, alice);
    const cc = await postForm(
      `${p.url}/connect/token`,
      { grant_type: "client_credentials", scope: "acme" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    expect(cc.status, cc.text).toBe(200);
    const [head, body, signature] = tokens.access_token.split(".");
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<string, unknown>;
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 3600 })).toString("base64url")}.${signature}`;
    for (const token of [(cc.json as { access_token: string }).access_token, "garbage", tampered, `${tokens.access_token}x`, undefined]) {
      expect(await writeStatus(p, token, { session_id: session.sessionId, status: 10, data: "x" }), String(token)).toMatchObject(
        tokenRefused,
      );
    }
    expect(await scanState(session)).toBe("scanned");
    // The scan's own token still writes.
    expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "mine" })).status).toBe(200);
  });
});

describe("a session only moves forward", () => {
  it("after 10, writing 5 or -10 is refused and the PC logs in with the 10's data", async () => {
    const { session, tokens } = await approvedSession("the approved data");
    for (const write of [{ status: 5, auditor: "E10002" }, { status: -10 }, { status: 10, data: "rewritten" }]) {
      expect(await writeStatus(p, tokens.access_token, { session_id: session.sessionId, data: "", ...write })).toMatchObject({
        status: 400,
        json: { status: 400 },
      });
    }
    expect(await scanState(session)).toBe("approved");
    expect((await pcLogin(session)).location!.searchParams.get("state")).toBe("the approved data|pc-state");
  });

  it("after -10, writing 10 is refused and nobody logs in", async () => {
    const { session, tokens } = await scannedSession(p, alice, { PCState: "pc-state" });
    expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: -10 })).status).toBe(200);
    expect(await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "late" })).toMatchObject({
      status: 400,
      json: { status: 400 },
    });
    expect(await scanState(session)).toBe("refused");
    expectRefused(await pcLogin(session));
  });
});

describe("the phone side", () => {
  it("refuses a second scan by another phone; the first phone's operation goes on", async () => {
    const session = await loadLoginJs(p, { PCState: "pc-state" });
    const first = await scan(alice, session.qrUri);
    const second = await scan(bob, session.qrUri);
    expect(`${new URL(second.location).origin}${new URL(second.location).pathname}`).toBe(MOBILE_REDIRECT);
    expect(second.params.get("error")).toBe("access_denied");
    expect(second.params.get("code")).toBeNull();
    const tokens = await mobileTokens(p, first.params.get("code")!);
    await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data: "alice's" });
    const login = await pcLogin(session);
    const pcTokens = await redeemCode(
      p,
      login.location!.searchParams.get("code")!,
      { redirect_uri: PC_REDIRECT, code_verifier: undefined },
      DEMO_WEB,
    );
    expect(decodeJwt((pcTokens.json as { id_token: string }).id_token).sub).toBe("E10001");
  });

  it("a QR whose state names an unknown session, or a session of another client, attaches to nothing", async () => {
    const session = await loadLoginJs(p);
    const channelSession = await loadLoginJs(p, {
      clientId: "demo-channel",
      MobileRedirectUrl: "http://localhost:4100/channel/select",
      PCRedirectUrl: "http://localhost:3005/custom-login/pc",
      PCClientId: "demo-web",
      PCScope: "openid channel.login.scan",
    });
    const flipped = `${session.sessionId.slice(0, -1)}${session.sessionId.endsWith("A") ? "B" : "A"}`;
    for (const id of [flipped, channelSession.sessionId]) {
      const tampered = new URL(session.qrUri);
      tampered.searchParams.set("state", `${id}|m`);
      const { params } = await scan(alice, tampered.href);
      // An ordinary login of the QR's client: its state as sent, a token that can write nothing.
      expect(params.get("state")).toBe(`${id}|m`);
      const tokens = await mobileTokens(p, params.get("code")!);
      expect(decodeJwt(tokens.access_token).custom_scan_sid).toBeUndefined();
      expect(await writeStatus(p, tokens.access_token, { session_id: id, status: 10, data: "x" })).toMatchObject({
        status: 401,
        json: { status: 401 },
      });
    }
    expect(await scanState(session)).toBe("waiting");
    expect(await scanState(channelSession)).toBe("waiting");
  });
});
