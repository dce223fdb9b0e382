import * as oidc from "openid-client";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { assertionForm, clientKeyPair, signAssertion, type ClientKeyPair } from "../support/client-assertions.ts";
import { dpopKey, type DpopKey } from "../support/dpop-proof.ts";
import { loginWithPassword, responseParams } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startAuthorization } from "../support/rp-authorization.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * A FAPI 2.0 client (clients.yaml `profile: fapi2`, docs/fapi2.md) driven by openid-client v6: a pushed
 * authorization request with a DPoP proof, private_key_jwt (PS256), a browser login, the code redeemed
 * with DPoP, userinfo with DPoP, a refresh that keeps its token. Then every shortcut around the profile
 * is attacked and refused: a plain authorize query, a token request without DPoP, the access token as
 * Bearer, a secret, an RS256 assertion or proof, the password grant, a code past 60 s, PKCE left out or plain.
 */
const CALLBACK = "http://localhost:3011/callback";
let op: TestProvider;
let events: AuditEvent[];
/** How far the provider's clock runs ahead of the machine's: moved past a code's lifetime instead of waiting. */
let ahead = 0;
let ps: ClientKeyPair;
/** Registered too, so that an RS256 assertion is refused for its algorithm and not for an unknown key. */
let rs: ClientKeyPair;
let config: oidc.Configuration;

beforeAll(async () => {
  [ps, rs] = await Promise.all([clientKeyPair("PS256", "ps-1"), clientKeyPair("RS256", "rs-1")]);
  op = await startTestProvider({
    clock: () => Date.now() + ahead,
    edits: {
      "clients.yaml": {
        "clients.+0": {
          client_id: "bank",
          profile: "fapi2",
          jwks: { keys: [ps.publicJwk, rs.publicJwk] },
          grant_types: ["authorization_code", "refresh_token"],
          redirect_uris: [CALLBACK],
          allowed_scopes: ["openid", "profile", "offline_access", "acme"],
          offline_access: true,
        },
      },
    },
  });
  events = collectAudit(op);
  config = await discover(oidc.PrivateKeyJwt({ key: ps.privateKey, kid: ps.kid }));
});
afterAll(() => op?.close());
beforeEach(() => {
  ahead = 0;
  events.length = 0;
});

function discover(auth: oidc.ClientAuth): Promise<oidc.Configuration> {
  // The profile signs ID tokens PS256: openid-client checks the alg against the client's metadata.
  return oidc.discovery(new URL(op.issuer), "bank", { id_token_signed_response_alg: "PS256" }, auth, {
    execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
  });
}

interface Pushed {
  url: URL;
  checks: { pkceCodeVerifier: string; expectedState: string; expectedNonce: string };
}

/** A pushed authorization request with PKCE S256, state and nonce (`params` add or replace), optionally with a DPoP proof. */
async function push(params: Record<string, string> = {}, DPoP?: oidc.DPoPHandle, with_ = config): Promise<Pushed> {
  const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
  const checks = { pkceCodeVerifier, expectedState: oidc.randomState(), expectedNonce: oidc.randomNonce() };
  const url = await oidc.buildAuthorizationUrlWithPAR(
    with_,
    {
      redirect_uri: CALLBACK,
      scope: "openid profile offline_access acme",
      code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: "S256",
      state: checks.expectedState,
      nonce: checks.expectedNonce,
      ...params,
    },
    DPoP && { DPoP },
  );
  return { url, checks };
}

/** alice logs in at the pushed request's URL; the redirect back to the client. */
async function login(pushed: Pushed): Promise<URL> {
  const answer = await loginWithPassword(new RawBrowser(), pushed.url.href);
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  return new URL(answer.location!);
}

const handle = (key: DpopKey) => oidc.getDPoPHandle(config, key);

describe("a FAPI 2.0 client with openid-client: PAR + DPoP + private_key_jwt", () => {
  it("logs in, redeems the code bound to its key, calls userinfo, and refreshes twice with the same refresh token", async () => {
    const key = await dpopKey("ES256");
    const pushed = await push({}, handle(key));
    expect([...pushed.url.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);
    const tokens = await oidc.authorizationCodeGrant(config, await login(pushed), pushed.checks, undefined, { DPoP: handle(key) });
    expect(tokens.token_type).toBe("dpop");
    expect(tokens.claims()).toMatchObject({ iss: op.issuer, sub: "E10001", aud: "bank", nonce: pushed.checks.expectedNonce });
    // §5.4: PS256, never RS256, for the ID token and the JWT access token; the access token is bound to the key.
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe("PS256");
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe("PS256");
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
    expect(await oidc.fetchUserInfo(config, tokens.access_token, "E10001", { DPoP: handle(key) })).toMatchObject({ sub: "E10001" });
    expect(eventsOf(events, "client.authenticated").every((event) => event.method === "private_key_jwt")).toBe(true);

    // Not rotated (FAPI 2.0 §5.3.2.1): the same refresh token works again, each time with a new access token bound to the key.
    const first = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: handle(key) });
    const second = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: handle(key) });
    expect([first.refresh_token, second.refresh_token]).toEqual([tokens.refresh_token, tokens.refresh_token]);
    expect(new Set([tokens.access_token, first.access_token, second.access_token]).size).toBe(3);
    expect([first.token_type, decodeJwt(second.access_token).cnf]).toEqual(["dpop", { jkt: key.jkt }]);
    expect(eventsOf(events, "refresh_token.reuse_detected")).toEqual([]);
    // Revoked, it stops working at once.
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: handle(key) })).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });
});

describe("every shortcut around the profile is refused", () => {
  it("a plain authorize query (no pushed request) goes back to the client as invalid_request", async () => {
    const { url } = await startAuthorization(config, { redirect_uri: CALLBACK, scope: "openid" });
    const params = responseParams(await new RawBrowser().get(url.href));
    expect(params.get("error")).toBe("invalid_request");
    expect(params.get("error_description")).toMatch(/push/i);
    expect(params.get("code")).toBeNull();
  });

  it("a token request without a DPoP proof: the code stays unredeemed until the client sends one", async () => {
    // Pushed without a proof, so the code is not bound to a key: what refuses the exchange is the client's require_dpop.
    const pushed = await push();
    const callback = await login(pushed);
    await expect(oidc.authorizationCodeGrant(config, callback, pushed.checks)).rejects.toMatchObject({
      error: "invalid_dpop_proof",
      error_description: "this client must send a DPoP proof",
    });
    const tokens = await oidc.authorizationCodeGrant(config, callback, pushed.checks, undefined, { DPoP: handle(await dpopKey()) });
    expect(tokens.token_type).toBe("dpop");
  });

  it("an RS256 DPoP proof, at the push and at the token endpoint; its access token presented as Bearer", async () => {
    const rsaKey = await dpopKey("RS256");
    await expect(push({}, handle(rsaKey))).rejects.toMatchObject({ error: "invalid_dpop_proof" });
    const pushed = await push();
    const callback = await login(pushed);
    await expect(oidc.authorizationCodeGrant(config, callback, pushed.checks, undefined, { DPoP: handle(rsaKey) })).rejects.toMatchObject({
      error: "invalid_dpop_proof",
      error_description: "this client's DPoP proofs must be signed with ES256, PS256, EdDSA",
    });
    // A PS256 proof (an RSA key too, the algorithm FAPI 2.0 allows) is taken.
    const tokens = await oidc.authorizationCodeGrant(config, callback, pushed.checks, undefined, { DPoP: handle(await dpopKey("PS256")) });
    const asBearer = await send(`${op.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect({ status: asBearer.status, error: asBearer.json?.error }).toEqual({ status: 401, error: "invalid_token" });
  });

  it("a client secret, and an RS256 client assertion by a registered key, are invalid_client", async () => {
    const withSecret = await discover(oidc.ClientSecretBasic("bank-secret"));
    // openid-client reports the 401's WWW-Authenticate challenge; the audit trail below says why it was refused.
    await expect(push({}, undefined, withSecret)).rejects.toMatchObject({ status: 401 });
    const secretAnswer = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "refresh_token", refresh_token: "x" },
      {
        authorization: basic("bank", "bank-secret"),
      },
    );
    expect({ status: secretAnswer.status, error: secretAnswer.json?.error }).toEqual({ status: 401, error: "invalid_client" });

    const rs256 = await signAssertion(rs, "bank", op.issuer);
    const answer = await postForm(`${op.url}/connect/token`, assertionForm(rs256, { grant_type: "refresh_token", refresh_token: "x" }));
    expect({ status: answer.status, error: answer.json?.error }).toEqual({ status: 401, error: "invalid_client" });
    expect(eventsOf(events, "client.authentication_failed").map((event) => event.reason)).toEqual([
      "method_not_allowed",
      "method_not_allowed",
      "algorithm_not_allowed",
    ]);
    // The same request with a PS256 assertion authenticates (and fails on the refresh token instead).
    const ps256 = await signAssertion(ps, "bank", op.issuer);
    const accepted = await postForm(`${op.url}/connect/token`, assertionForm(ps256, { grant_type: "refresh_token", refresh_token: "x" }));
    expect(accepted.json?.error).not.toBe("invalid_client");
  });

  it("the password grant", async () => {
    const assertion = await signAssertion(ps, "bank", op.issuer);
    const answer = await postForm(
      `${op.url}/connect/token`,
      assertionForm(assertion, { grant_type: "password", username: "alice", password: "alice-password", scope: "openid" }),
    );
    expect({ status: answer.status, error: answer.json?.error }).toEqual({ status: 400, error: "unauthorized_client" });
  });

  it("an authorization code redeemed 61 s after it was issued, while one at 45 s is taken (the provider's clock moved, no waiting)", async () => {
    const key = await dpopKey();
    const inTime = await push({}, handle(key));
    const inTimeCallback = await login(inTime);
    // 45 s, not 59: the real time the login and the request take adds to it on a busy machine.
    ahead = 45_000;
    expect((await oidc.authorizationCodeGrant(config, inTimeCallback, inTime.checks, undefined, { DPoP: handle(key) })).token_type).toBe(
      "dpop",
    );
    ahead = 0;
    const pushed = await push({}, handle(key));
    const callback = await login(pushed);
    ahead = 61_000;
    await expect(oidc.authorizationCodeGrant(config, callback, pushed.checks, undefined, { DPoP: handle(key) })).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("a pushed request without PKCE, or with the plain method", async () => {
    const withoutPkce = await push({ code_challenge: "", code_challenge_method: "" }).catch((err: unknown) => err);
    expect(withoutPkce).toMatchObject({ error: "invalid_request", error_description: expect.stringMatching(/PKCE|code_challenge/) });
    const verifier = oidc.randomPKCECodeVerifier();
    await expect(push({ code_challenge: verifier, code_challenge_method: "plain" })).rejects.toMatchObject({
      error: "invalid_request",
      error_description: "this client must use code_challenge_method=S256",
    });
  });
});
