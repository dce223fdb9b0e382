/**
 * The Back-Channel Logout OP certification profile (the suite's oidcc-backchannel-rp-initiated-logout-
 * certification-test-plan): discovery, then an RP-initiated logout of a static client registered with a
 * backchannel_logout_uri on the suite's /backchannel_logout path. The recording RP (loopback https)
 * receives the logout token; the checks are the suite's: the POST's form, the token's signature and claims
 * (Back-Channel Logout 1.0 §2.4), its sid and sub against the ID token's, then the return to
 * post_logout_redirect_uri with state and a prompt=none that finds no session.
 */
import { randomBytes } from "node:crypto";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/relying-party.ts";
import { endSession, expectSignedOut, signedIn, startCertificationStand, type CertificationStand } from "./certification-stand.ts";

const BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout";

describe("Back-Channel Logout OP (oidcc-backchannel-rp-initiated-logout-certification-test-plan)", { timeout: 60_000 }, () => {
  let stand: CertificationStand;

  beforeAll(async () => {
    stand = await startCertificationStand();
  });
  afterAll(async () => {
    await stand?.close();
  });

  it("oidcc-backchannel-logout-discovery-endpoint-verification", () => {
    // The profile requires sid in the ID token and logout token, so both flags, and somewhere to log out.
    expect(stand.discovery.backchannel_logout_supported).toBe(true);
    expect(stand.discovery.backchannel_logout_session_supported).toBe(true);
    expect(new URL(stand.discovery.end_session_endpoint as string).protocol).toBe("https:");
  });

  it("oidcc-backchannel-rp-initiated-logout", async () => {
    const client = stand.clients.backChannel;
    const { browser, idToken, claims } = await signedIn(stand, client);
    expect(claims.sid).toEqual(expect.any(String));

    const state = randomBytes(12).toString("base64url");
    const answer = await endSession(stand, browser, {
      id_token_hint: idToken,
      post_logout_redirect_uri: client.postLogoutRedirectUri,
      state,
    });
    expect(answer.status).toBe(303);
    const back = new URL(answer.location!);
    expect(back.origin + back.pathname).toBe(client.postLogoutRedirectUri);
    expect([...back.searchParams]).toEqual([["state", state]]);

    // Delivery runs in the background: wait for the POST, then check it as the suite does.
    await eventually(() => stand.receivedAt(client, "backChannel").length > 0, "the back-channel logout request");
    const requests = stand.receivedAt(client, "backChannel");
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method).toBe("POST");
    expect(request!.contentType).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(request!.body);
    // logout_token and nothing else (the suite warns on other parameters).
    expect([...form.keys()]).toEqual(["logout_token"]);

    const jwks = createRemoteJWKSet(new URL(stand.discovery.jwks_uri as string));
    const { payload, protectedHeader } = await jwtVerify(form.get("logout_token")!, jwks, {
      issuer: stand.issuer,
      audience: client.id,
      algorithms: ["RS256"],
      typ: "logout+jwt",
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.iat).toBeLessThanOrEqual(Date.now() / 1000 + 5);
    expect(payload.iat).toBeGreaterThan(Date.now() / 1000 - 86_400);
    expect(payload.jti).toEqual(expect.any(String));
    expect(payload.events).toEqual({ [BACKCHANNEL_EVENT]: {} });
    expect(payload.sid).toBe(claims.sid);
    if (payload.sub !== undefined) expect(payload.sub).toBe(claims.sub);
    expect(payload).not.toHaveProperty("nonce");

    await browser.get(answer.location!);
    expect(stand.receivedAt(client, "postLogout").at(-1)?.query.get("state")).toBe(state);
    await expectSignedOut(stand, browser, client);
  });
});
