import * as oidc from "openid-client";
import { SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { loginWithPassword } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startAuthorization } from "../support/rp-authorization.ts";
import {
  assertionForm,
  clientKeyPair,
  JWT_BEARER,
  keyClient,
  signAssertion,
  unsignedAssertion,
  type ClientKeyPair,
} from "../support/client-assertions.ts";

/**
 * private_key_jwt (RFC 7523) with keys declared inline in clients.yaml: openid-client's PrivateKeyJwt at
 * the real token and revocation endpoints, then every way an assertion can be wrong. Each is the same
 * 401 invalid_client, and the audit trail says why.
 */
let op: TestProvider;
let events: AuditEvent[];
let rsa: ClientKeyPair;
let ec: ClientKeyPair;
let other: ClientKeyPair;
/** The API resource key-api's key: it introspects with private_key_jwt. */
let apiKey: ClientKeyPair;

beforeAll(async () => {
  [rsa, ec, other, apiKey] = await Promise.all([
    clientKeyPair("RS256", "rsa-1"),
    clientKeyPair("ES256", "ec-1"),
    clientKeyPair("PS256", "other-1"),
    clientKeyPair("ES256", "api-1"),
  ]);
  op = await startTestProvider({
    edits: {
      "clients.yaml": {
        "clients.+0": { ...keyClient("key-client", { jwks: [rsa.publicJwk, ec.publicJwk] }), allowed_scopes: ["acme", "key.api"] },
        "clients.+1": keyClient("other-key-client", { jwks: [other.publicJwk] }),
        // A web app that authenticates with its key in the code flow: the code's redemption and each refresh.
        "clients.+2": {
          ...keyClient("key-web", { jwks: [ec.publicJwk] }),
          grant_types: ["authorization_code", "refresh_token"],
          redirect_uris: ["http://localhost:3009/callback"],
          allowed_scopes: ["openid", "profile", "offline_access", "acme"],
          offline_access: true,
        },
      },
      "scopes.yaml": { "api_resources.+0": { name: "key-api", jwks: { keys: [apiKey.publicJwk] }, scopes: [{ name: "key.api" }] } },
    },
  });
  events = collectAudit(op);
});
afterAll(() => op?.close());
beforeEach(() => {
  events.length = 0;
});

const token = (form: Record<string, string>, headers: Record<string, string> = {}) => postForm(`${op.url}/connect/token`, form, headers);

/** The request is refused as invalid_client, and the audit trail names the client (null: names none) and the reason. */
async function refused(answer: Awaited<ReturnType<typeof token>>, reason: string, clientId: string | null = "key-client") {
  expect(answer.status, answer.text).toBe(401);
  expect(answer.json?.error).toBe("invalid_client");
  const [failure] = eventsOf(events, "client.authentication_failed");
  expect(failure).toMatchObject({ reason });
  expect(failure?.client_id).toBe(clientId ?? undefined);
}

describe("openid-client's PrivateKeyJwt with keys in clients.yaml", () => {
  it.each(["rsa", "ec"] as const)("gets a client_credentials token and revokes it, signing with the %s key", async (which) => {
    const key = which === "rsa" ? rsa : ec;
    const config = await oidc.discovery(
      new URL(op.issuer),
      "key-client",
      undefined,
      oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const tokens = await oidc.clientCredentialsGrant(config, { scope: "acme" });
    expect(tokens.access_token).toBeTruthy();
    expect(eventsOf(events, "client.authenticated")).toEqual([
      { type: "client.authenticated", client_id: "key-client", method: "private_key_jwt", kid: key.kid },
    ]);
    await oidc.tokenRevocation(config, tokens.access_token);
    // The revocation authenticated with a fresh assertion of its own, and the token is gone.
    expect(eventsOf(events, "token.revoked")).toMatchObject([{ client_id: "key-client", token_type: "access_token" }]);
    const api = { authorization: basic("acme-api", "acme-api-secret") };
    expect((await postForm(`${op.url}/connect/introspect`, { token: tokens.access_token }, api)).json).toEqual({ active: false });
  });

  it("runs the code flow: the code redeemed and the refresh token used with assertions, ID token signatures checked", async () => {
    const config = await oidc.discovery(new URL(op.issuer), "key-web", undefined, oidc.PrivateKeyJwt({ key: ec.privateKey, kid: ec.kid }), {
      execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
    });
    const { url, checks } = await startAuthorization(config, {
      redirect_uri: "http://localhost:3009/callback",
      scope: "openid profile offline_access acme",
    });
    const answer = await loginWithPassword(new RawBrowser(), url.href);
    expect(answer.status, answer.text.slice(0, 300)).toBe(303);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(answer.location!), checks);
    expect(tokens.claims()).toMatchObject({ sub: "E10001", aud: "key-web" });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(eventsOf(events, "client.authenticated").map((event) => event.client_id)).toEqual(["key-web", "key-web"]);
  });

  it("pushes its authorization request (RFC 9126) authenticated by an assertion, then redeems the code", async () => {
    const config = await oidc.discovery(new URL(op.issuer), "key-web", undefined, oidc.PrivateKeyJwt({ key: ec.privateKey, kid: ec.kid }), {
      execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
    });
    const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
    const expectedState = oidc.randomState();
    const expectedNonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: "http://localhost:3009/callback",
      scope: "openid profile",
      code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: "S256",
      state: expectedState,
      nonce: expectedNonce,
    });
    expect(url.searchParams.get("request_uri")).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const answer = await loginWithPassword(new RawBrowser(), url.href);
    expect(answer.status, answer.text.slice(0, 300)).toBe(303);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(answer.location!), { pkceCodeVerifier, expectedState, expectedNonce });
    expect(tokens.claims()).toMatchObject({ sub: "E10001", aud: "key-web" });
    // The push and the redemption each authenticated with an assertion of their own.
    expect(eventsOf(events, "client.authenticated")).toMatchObject([
      { client_id: "key-web", method: "private_key_jwt" },
      { client_id: "key-web", method: "private_key_jwt" },
    ]);
  });

  it("refuses a push whose assertion was used already, or whose audience is the push endpoint", async () => {
    const form = {
      response_type: "code",
      redirect_uri: "http://localhost:3009/callback",
      scope: "openid",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    };
    const push = (assertion: string) =>
      postForm(`${op.url}/connect/par`, { ...form, client_assertion_type: JWT_BEARER, client_assertion: assertion });
    const once = await signAssertion(ec, "key-web", op.issuer);
    expect((await push(once)).status).toBe(201);
    await refused(await push(once), "replayed", "key-web");
    events.length = 0;
    await refused(
      await push(await signAssertion(ec, "key-web", op.issuer, { claims: { aud: `${op.issuer}/connect/par` } })),
      "wrong_audience",
      "key-web",
    );
  });

  it("advertises private_key_jwt and the asymmetric algorithms it accepts, and nothing symmetric", async () => {
    const metadata = (await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    for (const endpoint of ["token", "revocation", "introspection"]) {
      expect(metadata[`${endpoint}_endpoint_auth_methods_supported`]).toContain("private_key_jwt");
      expect(metadata[`${endpoint}_endpoint_auth_signing_alg_values_supported`]).toEqual(["RS256", "PS256", "ES256"]);
    }
  });

  it("accepts the client_id in the form when it names the assertion's client, and an assertion without it", async () => {
    expect((await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer), { client_id: "key-client" }))).status).toBe(200);
    expect((await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer)))).status).toBe(200);
  });
});

describe("an API resource that introspects with private_key_jwt", () => {
  it("introspects through openid-client with its key, and refuses the same assertion twice", async () => {
    const client = await oidc.discovery(
      new URL(op.issuer),
      "key-client",
      undefined,
      oidc.PrivateKeyJwt({ key: rsa.privateKey, kid: rsa.kid }),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const { access_token } = await oidc.clientCredentialsGrant(client, { scope: "key.api" });
    const api = await oidc.discovery(
      new URL(op.issuer),
      "key-api",
      undefined,
      oidc.PrivateKeyJwt({ key: apiKey.privateKey, kid: apiKey.kid }),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    expect(await oidc.tokenIntrospection(api, access_token)).toMatchObject({
      active: true,
      client_id: "key-client",
      aud: "key-api",
      scope: "key.api",
    });

    const assertion = await signAssertion(apiKey, "key-api", op.issuer);
    const introspect = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      postForm(`${op.url}/connect/introspect`, form, headers);
    const form = { token: access_token, client_assertion_type: JWT_BEARER, client_assertion: assertion };
    expect((await introspect(form)).json).toMatchObject({ active: true });
    const replayed = await introspect(form);
    expect(replayed.status).toBe(401);
    expect(replayed.json?.error).toBe("invalid_client");
    // The resource with an ApiSecret cannot switch to an assertion, and the keyed one has no secret to present.
    const secretResource = { ...form, client_assertion: await signAssertion(apiKey, "acme-api", op.issuer) };
    expect((await introspect(secretResource)).status).toBe(401);
    expect((await introspect({ token: access_token }, { authorization: basic("key-api", "anything") })).status).toBe(401);
    // A client's assertion does not make it an API resource.
    const asClient = { ...form, client_assertion: await signAssertion(rsa, "key-client", op.issuer) };
    expect((await introspect(asClient)).status).toBe(401);
  });
});

describe("assertions that are refused", () => {
  it("refuses an assertion presented a second time", async () => {
    const assertion = await signAssertion(rsa, "key-client", op.issuer);
    expect((await token(assertionForm(assertion))).status).toBe(200);
    await refused(await token(assertionForm(assertion)), "replayed");
  });

  it("refuses the token endpoint's URL as the audience, and an audience array naming another party", async () => {
    await refused(
      await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer, { claims: { aud: `${op.issuer}/connect/token` } }))),
      "wrong_audience",
    );
    events.length = 0;
    const two = await signAssertion(rsa, "key-client", op.issuer, { claims: { aud: [op.issuer, "https://attacker.example"] } });
    await refused(await token(assertionForm(two)), "wrong_audience");
    events.length = 0;
    // The issuer alone in an array is the same single audience, and is accepted.
    expect((await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer, { claims: { aud: [op.issuer] } })))).status).toBe(
      200,
    );
  });

  it("refuses an expired assertion, one whose exp lies too far ahead, one without exp, one not valid yet, and one without jti", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ iat: now - 600, exp: now - 120 }, "expired"],
      [{ exp: now + 3600 }, "exp_too_far"],
      [{ exp: undefined }, "invalid_claims"],
      [{ nbf: now + 600, exp: now + 660 }, "invalid_claims"],
      [{ iat: now + 200, exp: now + 260 }, "not_yet_valid"],
      [{ jti: undefined }, "jti_missing"],
    ];
    for (const [claims, reason] of cases) {
      events.length = 0;
      await refused(await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer, { claims }))), reason);
    }
  });

  it("refuses alg none, HS256 keyed with anything, and an alg that does not fit the named key", async () => {
    const claims = { iss: "key-client", sub: "key-client", aud: op.issuer, exp: Math.floor(Date.now() / 1000) + 60, jti: "none-1" };
    await refused(await token(assertionForm(unsignedAssertion(claims))), "algorithm_not_allowed");
    events.length = 0;
    // HS256 keyed with the public key's modulus: the classic confusion of a public key used as a shared secret.
    const hs = await new SignJWT({ ...claims, jti: "hs-1" })
      .setProtectedHeader({ alg: "HS256", kid: rsa.kid })
      .sign(new TextEncoder().encode(String(rsa.publicJwk.n)));
    await refused(await token(assertionForm(hs)), "algorithm_not_allowed");
    events.length = 0;
    // Signed correctly with the RSA key, but its header names the EC key: no key of that kid fits RS256.
    await refused(
      await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer, { header: { kid: ec.kid } }))),
      "no_matching_key",
    );
  });

  it("refuses an assertion signed with another client's key, and one naming another client than its form's client_id", async () => {
    await refused(
      await token(assertionForm(await signAssertion(other, "key-client", op.issuer, { header: { kid: rsa.kid } }))),
      "bad_signature",
    );
    events.length = 0;
    await refused(await token(assertionForm(await signAssertion(other, "key-client", op.issuer))), "no_matching_key");
    events.length = 0;
    const mine = await signAssertion(other, "other-key-client", op.issuer);
    await refused(await token(assertionForm(mine, { client_id: "key-client" })), "no_matching_key");
    events.length = 0;
    const swapped = await signAssertion(rsa, "key-client", op.issuer, { claims: { iss: "other-key-client" } });
    await refused(await token(assertionForm(swapped)), "wrong_issuer_or_subject");
  });

  it("refuses a secret from a private_key_jwt client, and an assertion from a client that authenticates with a secret", async () => {
    await refused(
      await token({ grant_type: "client_credentials" }, { authorization: basic("key-client", "any-secret") }),
      "method_not_allowed",
    );
    events.length = 0;
    await refused(await token({ grant_type: "client_credentials", client_id: "key-client" }), "method_not_allowed");
    events.length = 0;
    const service = await signAssertion(rsa, "demo-service", op.issuer);
    await refused(await token(assertionForm(service)), "method_not_allowed", "demo-service");
  });

  it("refuses an assertion that is not a JWT, one with a header member of the wrong type, and one of another token type", async () => {
    await refused(await token(assertionForm("not.a.jwt", { client_id: "key-client" })), "malformed");
    events.length = 0;
    await refused(await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer, { header: { typ: 42 } }))), "malformed");
    events.length = 0;
    await refused(
      await token(assertionForm(await signAssertion(rsa, "key-client", op.issuer, { header: { typ: "at+jwt" } }))),
      "type_not_allowed",
    );
    events.length = 0;
    // Without a client_id, a garbage assertion names no client at all.
    await refused(await token(assertionForm("garbage")), "malformed", null);
    // RFC 7523bis's explicit type is accepted.
    const typed = await signAssertion(rsa, "key-client", op.issuer, { header: { typ: "client-authentication+jwt" } });
    expect((await token(assertionForm(typed))).status).toBe(200);
  });

  it("refuses a wrong client_assertion_type and two methods at once", async () => {
    const assertion = await signAssertion(rsa, "key-client", op.issuer);
    const wrongType = await token({ ...assertionForm(assertion), client_assertion_type: `${JWT_BEARER}x` });
    expect(wrongType.status).toBe(401);
    expect(wrongType.json?.error).toBe("invalid_client");
    const both = await token(assertionForm(assertion), { authorization: basic("key-client", "x") });
    expect(both.status).toBe(400);
    expect(both.json?.error).toBe("invalid_request");
    // Neither used up the assertion.
    expect((await token(assertionForm(assertion))).status).toBe(200);
  });
});
