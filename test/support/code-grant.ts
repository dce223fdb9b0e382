/**
 * Authorization codes without a browser: a code is minted in process with `provider.codes.issue`, as
 * the authorize endpoint does after a login, then redeemed over HTTP like a relying party would.
 */
import { createHash } from "node:crypto";
import { createLocalJWKSet, jwtVerify, type JWTPayload } from "jose";
import { expect } from "vitest";
import type { AuthorizationCodeGrant } from "../../src/oauth/authorization-code.ts";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import { postForm, type TestProvider } from "./test-provider.ts";

export const WEB = { id: "demo-web", secret: "demo-web-secret" } as const;
export const WEB_REDIRECT = "http://localhost:3001/callback";
export const SPA = { id: "demo-spa" } as const;
export const SPA_REDIRECT = "http://localhost:3002/callback";

/** RFC 7636 Appendix B's verifier. */
export const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

/** What a completed 2fa login at demo-web produces, with PKCE S256; `overrides` change any part. */
export function codeGrant(overrides: Partial<AuthorizationCodeGrant> = {}): AuthorizationCodeGrant {
  return {
    clientId: WEB.id,
    redirectUri: WEB_REDIRECT,
    scopes: ["openid", "profile", "acme", "offline_access"],
    sub: "E10001",
    authTime: Math.floor(Date.now() / 1000) - 5,
    amr: ["password", "totp", "mfa"],
    acr: "2fa",
    nonce: "n-0S6_WzA2Mj",
    sid: "sid-7f3a",
    codeChallenge: s256Challenge(VERIFIER),
    codeChallengeMethod: "S256",
    ...overrides,
  };
}

/** Mints a code (5 minutes, as the demo config says) for `codeGrant(overrides)`. */
export function mintCode(p: TestProvider, overrides: Partial<AuthorizationCodeGrant> = {}, ttlSeconds = 300): Promise<string> {
  return p.provider.codes.issue(codeGrant(overrides), ttlSeconds);
}

type ClientCredentials = { id: string; secret?: string };

/** The authorization_code token request with client_secret_post; `form` adds or (as undefined) removes fields. */
export function redeemCode(p: TestProvider, code: string, form: Record<string, string | undefined> = {}, client: ClientCredentials = WEB) {
  const fields: Record<string, string | undefined> = {
    grant_type: "authorization_code",
    client_id: client.id,
    client_secret: client.secret,
    code,
    redirect_uri: WEB_REDIRECT,
    code_verifier: VERIFIER,
    ...form,
  };
  return postForm(
    p.url + "/connect/token",
    Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined)),
  );
}

/** The refresh_token token request with client_secret_post. */
export function refresh(p: TestProvider, refreshToken: string, form: Record<string, string> = {}, client: ClientCredentials = WEB) {
  return postForm(p.url + "/connect/token", {
    grant_type: "refresh_token",
    client_id: client.id,
    ...(client.secret !== undefined && { client_secret: client.secret }),
    refresh_token: refreshToken,
    ...form,
  });
}

/** Mints and redeems a code; the token response, which must be a 200. */
export async function codeTokens(
  p: TestProvider,
  overrides: Partial<AuthorizationCodeGrant> = {},
  form: Record<string, string | undefined> = {},
) {
  const res = await redeemCode(p, await mintCode(p, overrides), form);
  expect(res.status, res.text).toBe(200);
  return res.json as {
    access_token: string;
    token_type: string;
    expires_in: number;
    scope: string;
    id_token?: string;
    refresh_token?: string;
  };
}

/** Verifies an ID token as a relying party: RS256 against the published JWKS, typ JWT, our issuer, the client as audience. */
export async function verifyIdToken(
  p: TestProvider,
  idToken: string,
  clientId: string = WEB.id,
): Promise<JWTPayload & Record<string, unknown>> {
  const jwks = (await (await fetch(p.url + "/.well-known/openid-configuration/jwks")).json()) as Parameters<typeof createLocalJWKSet>[0];
  const { payload } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
    algorithms: ["RS256"],
    issuer: p.issuer,
    audience: clientId,
    typ: "JWT",
  });
  return payload as JWTPayload & Record<string, unknown>;
}

/** OIDC Core §3.1.3.6, computed independently of the provider's code. */
export function expectedAtHash(accessToken: string): string {
  return createHash("sha256").update(accessToken, "ascii").digest().subarray(0, 16).toString("base64url");
}
