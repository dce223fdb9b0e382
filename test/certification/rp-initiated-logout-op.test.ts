/**
 * The RP-Initiated Logout OP certification profile (the suite's oidcc-rp-initiated-logout-certification-
 * test-plan: discovery, client_secret_basic, static client with a post_logout_redirect_uri on the suite's
 * /post_logout_redirect path), one test per module. Each module signs alice in, sends the browser to the
 * end-session endpoint as the module describes, and checks where it ends: the registered return address
 * with state, the logged-out page, a confirmation, or an error page — and whether the session is gone.
 */
import { randomBytes } from "node:crypto";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  confirmLogout,
  endSession,
  expectLoggedOutPage,
  expectLogoutRefused,
  expectSignedOut,
  expectStillSignedIn,
  signedIn,
  startCertificationStand,
  type CertificationStand,
} from "./certification-stand.ts";

describe("RP-Initiated Logout OP (oidcc-rp-initiated-logout-certification-test-plan)", { timeout: 60_000 }, () => {
  let stand: CertificationStand;
  const state = () => randomBytes(12).toString("base64url");

  beforeAll(async () => {
    stand = await startCertificationStand();
  });
  afterAll(async () => {
    await stand?.close();
  });

  /** Nothing reached the client's post-logout address since `before` (the suite fails a module that sees it called). */
  const expectNoReturn = (before: number) =>
    expect(stand.received.slice(before).filter((r) => r.path.endsWith("/post_logout_redirect"))).toEqual([]);

  it("oidcc-rp-initiated-logout-discovery-endpoint-verification", () => {
    expect(new URL(stand.discovery.end_session_endpoint as string).protocol).toBe("https:");
    expect(new URL(stand.discovery.end_session_endpoint as string).origin).toBe(stand.issuer);
  });

  it("oidcc-rp-initiated-logout", async () => {
    const client = stand.clients.basic;
    const { browser, idToken } = await signedIn(stand, client);
    const sent = state();
    const answer = await endSession(stand, browser, {
      id_token_hint: idToken,
      post_logout_redirect_uri: client.postLogoutRedirectUri,
      state: sent,
    });
    expect(answer.status).toBe(303);
    const back = new URL(answer.location!);
    expect(back.origin + back.pathname).toBe(client.postLogoutRedirectUri);
    // state exactly as sent, and nothing else (the suite warns on other parameters).
    expect([...back.searchParams]).toEqual([["state", sent]]);
    await browser.get(answer.location!);
    expect(stand.receivedAt(client, "postLogout").at(-1)?.query.get("state")).toBe(sent);
    await expectSignedOut(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-bad-post-logout-redirect-uri", async () => {
    // A valid hint, an unregistered return address: an error page (RP-Initiated Logout §3), no redirect, nothing ended.
    const client = stand.clients.basic;
    const { browser, idToken } = await signedIn(stand, client);
    const before = stand.received.length;
    const answer = await endSession(stand, browser, {
      id_token_hint: idToken,
      post_logout_redirect_uri: `${new URL(client.postLogoutRedirectUri).origin}/elsewhere/post_logout_redirect`,
      state: state(),
    });
    expectLogoutRefused(answer);
    expect(answer.text).toContain("invalid_request");
    expectNoReturn(before);
    await expectStillSignedIn(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-modified-id-token-hint", async () => {
    // The hint's header changed to alg none and its signature dropped: not our token, an error page.
    const client = stand.clients.basic;
    const { browser, idToken } = await signedIn(stand, client);
    const [, payload] = idToken.split(".");
    const modified = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    const before = stand.received.length;
    const answer = await endSession(stand, browser, {
      id_token_hint: modified,
      post_logout_redirect_uri: client.postLogoutRedirectUri,
      state: state(),
    });
    expectLogoutRefused(answer);
    expectNoReturn(before);
    await expectStillSignedIn(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-no-id-token-hint", async () => {
    // A return address without a hint: not followed; the user is asked, and after confirming the logged-out page.
    const client = stand.clients.basic;
    const { browser } = await signedIn(stand, client);
    const before = stand.received.length;
    const page = await endSession(stand, browser, { post_logout_redirect_uri: client.postLogoutRedirectUri, state: state() });
    const done = await confirmLogout(browser, page);
    expectLoggedOutPage(done);
    expectNoReturn(before);
    await expectSignedOut(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-no-params", async () => {
    // No parameters: the user confirms (no hint says who asked), then is logged out.
    const client = stand.clients.basic;
    const { browser } = await signedIn(stand, client);
    expectLoggedOutPage(await confirmLogout(browser, await endSession(stand, browser, {})));
    await expectSignedOut(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-no-post-logout-redirect-uri", async () => {
    // A valid hint for this session logs out at once; with no return address, the logged-out page.
    const client = stand.clients.basic;
    const { browser, idToken } = await signedIn(stand, client);
    const before = stand.received.length;
    expectLoggedOutPage(await endSession(stand, browser, { id_token_hint: idToken, state: state() }));
    expectNoReturn(before);
    await expectSignedOut(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-no-state", async () => {
    const client = stand.clients.basic;
    const { browser, idToken } = await signedIn(stand, client);
    const answer = await endSession(stand, browser, { id_token_hint: idToken, post_logout_redirect_uri: client.postLogoutRedirectUri });
    expect(answer.status).toBe(303);
    // The registered address byte for byte: no state was sent, none comes back.
    expect(answer.location).toBe(client.postLogoutRedirectUri);
    await expectSignedOut(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-only-state", async () => {
    // state alone is used only with a return address: ignored, the user confirms, the logged-out page.
    const client = stand.clients.basic;
    const { browser } = await signedIn(stand, client);
    const before = stand.received.length;
    expectLoggedOutPage(await confirmLogout(browser, await endSession(stand, browser, { state: state() })));
    expectNoReturn(before);
    await expectSignedOut(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri", async () => {
    // ?foo=bar makes it another URI than the registered one (exact match): an error page, no redirect.
    const client = stand.clients.basic;
    const { browser, idToken } = await signedIn(stand, client);
    const before = stand.received.length;
    const answer = await endSession(stand, browser, {
      id_token_hint: idToken,
      post_logout_redirect_uri: `${client.postLogoutRedirectUri}?foo=bar`,
      state: state(),
    });
    expectLogoutRefused(answer);
    expectNoReturn(before);
    await expectStillSignedIn(stand, browser, client);
  });

  it("oidcc-rp-initiated-logout-bad-id-token-hint", async () => {
    // A hint with our token's claims, signed by a key of the tester's own: refused, an error page.
    const client = stand.clients.basic;
    const { browser, claims } = await signedIn(stand, client);
    const { privateKey } = await generateKeyPair("RS256");
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: "RS256", kid: "tester-key", typ: "JWT" }).sign(privateKey);
    const before = stand.received.length;
    const answer = await endSession(stand, browser, {
      id_token_hint: forged,
      post_logout_redirect_uri: client.postLogoutRedirectUri,
      state: state(),
    });
    expectLogoutRefused(answer);
    expectNoReturn(before);
    await expectStillSignedIn(stand, browser, client);
  });
});
