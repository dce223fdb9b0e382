/**
 * Discovery and JWKS (SPEC "Discovery", "Token validation by clients"): the metadata tells the truth
 * about what is served, and the key set publishes public RSA keys only.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { clientCredentialsToken, decodeJwt, DISCOVERY, JWKS, LEGACY, requestPassword, send, SERVICE } from "./helpers.ts";
import { codeTokens, mintCode, redeemCode, refresh, SPA, SPA_REDIRECT } from "../support/code-grant.ts";

let p: TestProvider;
let metadata: Record<string, unknown>;

beforeAll(async () => {
  p = await startTestProvider();
  const res = await fetch(p.url + DISCOVERY);
  expect(res.status).toBe(200);
  metadata = (await res.json()) as Record<string, unknown>;
});
afterAll(() => p?.close());

/** A real, successful token request for each grant type the provider may advertise at this stage. */
const GRANT_CHECKS: Record<string, () => Promise<number>> = {
  client_credentials: async () =>
    (await postForm(p.url + "/connect/token", { grant_type: "client_credentials", client_id: SERVICE.id, client_secret: SERVICE.secret }))
      .status,
  password: async () => (await requestPassword(p, "alice", "alice-password")).status,
  authorization_code: async () => (await redeemCode(p, await mintCode(p))).status,
  refresh_token: async () => (await refresh(p, (await codeTokens(p)).refresh_token!)).status,
};

describe("discovery", () => {
  it("names the provider's issuer", () => {
    expect(metadata.issuer).toBe(p.issuer);
  });

  it("never takes the issuer or endpoint URLs from Host or X-Forwarded-* headers", async () => {
    const { hostname, port } = new URL(p.url);
    const headers = {
      host: "evil.example",
      "x-forwarded-host": "evil2.example",
      "x-forwarded-proto": "https",
      forwarded: "host=evil3.example;proto=https",
    };
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ hostname, port, path: DISCOVERY, headers }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve(body));
      });
      req.on("error", reject);
      req.end();
    });
    expect(JSON.parse(text)).toEqual(metadata);
    expect(text).not.toMatch(/evil|https:/);
  });

  it("advertises only endpoint URLs under the issuer that are really served", async () => {
    const endpoints = Object.entries(metadata).filter(([key]) => key.endsWith("_endpoint") || key === "jwks_uri");
    expect(endpoints.map(([key]) => key)).toEqual(
      expect.arrayContaining([
        "end_session_endpoint",
        "introspection_endpoint",
        "jwks_uri",
        "revocation_endpoint",
        "token_endpoint",
        "userinfo_endpoint",
      ]),
    );
    for (const [key, value] of endpoints) {
      expect(value, key).toEqual(expect.any(String));
      expect((value as string).startsWith(p.issuer + "/"), key).toBe(true);
      expect((await send(value as string)).status, key).not.toBe(404);
    }
  });

  it("advertises exactly authorization_code, client_credentials, password and refresh_token, and each one works", async () => {
    expect([...(metadata.grant_types_supported as string[])].sort()).toEqual([
      "authorization_code",
      "client_credentials",
      "password",
      "refresh_token",
    ]);
    for (const grant of metadata.grant_types_supported as string[]) {
      expect(GRANT_CHECKS[grant], `no check for advertised grant ${grant}`).toBeDefined();
      expect(await GRANT_CHECKS[grant]!(), grant).toBe(200);
    }
  });

  // private_key_jwt works too: test/e2e/private-key-jwt.test.ts.
  it("advertises client_secret_post, client_secret_basic, private_key_jwt and none at the token endpoint, and each secret method and none works", async () => {
    expect([...(metadata.token_endpoint_auth_methods_supported as string[])].sort()).toEqual([
      "client_secret_basic",
      "client_secret_post",
      "none",
      "private_key_jwt",
    ]);
    const viaPost = await postForm(metadata.token_endpoint as string, {
      grant_type: "client_credentials",
      client_id: SERVICE.id,
      client_secret: SERVICE.secret,
    });
    const viaBasic = await postForm(
      metadata.token_endpoint as string,
      { grant_type: "client_credentials" },
      { authorization: basic(SERVICE.id, SERVICE.secret) },
    );
    // none: a public client with client_id alone (and PKCE).
    const spaCode = await mintCode(p, { clientId: SPA.id, redirectUri: SPA_REDIRECT, scopes: ["openid"] });
    const viaNone = await redeemCode(p, spaCode, { redirect_uri: SPA_REDIRECT }, SPA);
    expect([viaPost.status, viaBasic.status, viaNone.status]).toEqual([200, 200, 200]);
  });

  it("lists every scope declared in scopes.yaml, and offline_access", () => {
    const file = parse(readFileSync(join(p.configDir, "scopes.yaml"), "utf8")) as {
      identity_scopes: Array<{ name: string }>;
      api_resources: Array<{ scopes: Array<{ name: string }> }>;
    };
    const declared = [...file.identity_scopes.map((s) => s.name), ...file.api_resources.flatMap((r) => r.scopes.map((s) => s.name))];
    expect(declared).toEqual(expect.arrayContaining(["openid", "profile", "acme", "acme.api.msg"]));
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining([...declared, "offline_access"]));
  });

  it("advertises the acr claim's values (1fa, 2fa) and the spec's acr_values the demo serves, and its login types", () => {
    expect(metadata.acr_values_supported).toEqual(["1fa", "2fa", "must_bfido", "req_chnl", "chnl_info", "app_gps", "app_faceid"]);
    expect(metadata.login_types_supported).toEqual([
      "2FA",
      "Mfa",
      "MfaAcmeOtp",
      "MfaScan",
      "MfaTotp",
      "MfaFido",
      "MfaMail",
      "MfaSms",
      "MfaAcmeApp",
      "MyVendor",
      "eID",
    ]);
  });

  it("lists in claims_supported every claim an ID token and userinfo carry, and the login claims the acr values and the custom login add", async () => {
    const loginClaims = {
      chnl: "north-store",
      chnl_name: "North Store",
      chnl_icon: "https://x/i.png",
      gps: { lat: 1, lnt: 2, time: 3 },
      faceid: { result: "pass", key: "k", time: 3 },
      custom_scan: "e30",
    };
    const tokens = await codeTokens(p, { scopes: ["openid", "profile", "email"], nonce: "n-1", idTokenClaims: loginClaims });
    const idToken = decodeJwt(tokens.id_token!).payload;
    const userinfo = (await (
      await fetch(`${p.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json()) as Record<string, unknown>;
    const supported = metadata.claims_supported as string[];
    for (const claim of [...Object.keys(idToken), ...Object.keys(userinfo)]) expect(supported, claim).toContain(claim);
    expect(supported).toEqual(expect.arrayContaining(["nonce", "chnl", "chnl_name", "chnl_icon", "gps", "faceid", "custom_scan"]));
    expect(new Set(supported).size).toBe(supported.length);
  });

  it("advertises the algorithms the key ring signs with, RS256 (the default) first", () => {
    expect(metadata.id_token_signing_alg_values_supported).toEqual(["RS256", "PS256", "ES256"]);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(p.provider.keys.keys.algorithms);
  });

  it("advertises userinfo, end session, and front- and back-channel logout with session ids", () => {
    expect(metadata.userinfo_endpoint).toBe(`${p.issuer}/connect/userinfo`);
    expect(metadata.end_session_endpoint).toBe(`${p.issuer}/connect/endsession`);
    expect(metadata).toMatchObject({
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
  });

  it("answers HEAD with 200, and POST with 405 and Allow: GET, HEAD", async () => {
    expect((await fetch(p.url + DISCOVERY, { method: "HEAD" })).status).toBe(200);
    const post = await send(p.url + DISCOVERY, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(post.json?.error).toBe("invalid_request");
  });
});

describe("JWKS", () => {
  let keys: Array<Record<string, unknown>>;

  beforeAll(async () => {
    const res = await fetch(metadata.jwks_uri as string);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    keys = ((await res.json()) as { keys: Array<Record<string, unknown>> }).keys;
  });

  it("is served at the SPEC path and announced as jwks_uri", () => {
    expect(metadata.jwks_uri).toBe(p.issuer + JWKS);
  });

  it("publishes at least one key", () => {
    expect(keys.length).toBeGreaterThan(0);
  });

  it("gives every RSA key exactly kid, kty RSA, use sig, alg RS256 or PS256, e and n", () => {
    const rsa = keys.filter((k) => k.kty === "RSA");
    expect(rsa.map((k) => k.alg)).toEqual(["RS256", "PS256"]);
    for (const key of rsa) {
      expect(Object.keys(key).sort()).toEqual(["alg", "e", "kid", "kty", "n", "use"]);
      expect(key).toMatchObject({
        use: "sig",
        kid: expect.any(String),
        e: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      });
      expect(key.n).toMatch(/^[A-Za-z0-9_-]{342,}$/); // RSA-2048 or larger
    }
  });

  it("gives the EC key exactly kid, kty EC, use sig, alg ES256, crv P-256, x and y", () => {
    const ec = keys.filter((k) => k.kty !== "RSA");
    expect(ec).toHaveLength(1);
    expect(Object.keys(ec[0]!).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
    expect(ec[0]).toMatchObject({
      kty: "EC",
      use: "sig",
      alg: "ES256",
      crv: "P-256",
      x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      y: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
  });

  it("publishes no private key member", () => {
    for (const key of keys) for (const member of ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]) expect(key).not.toHaveProperty(member);
  });

  it("gives each key a distinct kid", () => {
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
  });

  it("contains the kid of an issued access token", async () => {
    const { header } = decodeJwt(await clientCredentialsToken(p));
    expect(keys.map((k) => k.kid)).toContain(header.kid);
    const user = await requestPassword(p, "alice", "alice-password", {}, LEGACY);
    expect(keys.map((k) => k.kid)).toContain(decodeJwt(user.json!.access_token as string).header.kid);
  });

  it("answers HEAD with 200, and POST with 405", async () => {
    expect((await fetch(p.url + JWKS, { method: "HEAD" })).status).toBe(200);
    const post = await send(p.url + JWKS, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("cross-origin reads", () => {
  it("lets any origin read discovery and JWKS, but not the token endpoint's answers", async () => {
    for (const path of [DISCOVERY, JWKS]) expect((await fetch(p.url + path)).headers.get("access-control-allow-origin")).toBe("*");
    const token = await postForm(p.url + "/connect/token", {
      grant_type: "client_credentials",
      client_id: SERVICE.id,
      client_secret: SERVICE.secret,
    });
    expect(token.headers.get("access-control-allow-origin")).toBeNull();
  });
});
