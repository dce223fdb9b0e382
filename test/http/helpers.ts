/**
 * Shared helpers for the real-HTTP tests under test/http: token requests, introspection, JWKS
 * verification, and checks every protocol response must pass.
 */
import { expect } from "vitest";
import { createLocalJWKSet, jwtVerify, type JWTPayload, type JWTHeaderParameters } from "jose";
import { hashSecret } from "../../src/crypto/secret-hash.ts";
import { basic, postForm, type TestProvider } from "../support/test-provider.ts";
export { send } from "../support/test-provider.ts";

export const TOKEN = "/connect/token";
export const INTROSPECT = "/connect/introspect";
export const REVOKE = "/connect/revocation";
export const DISCOVERY = "/.well-known/openid-configuration";
export const JWKS = "/.well-known/openid-configuration/jwks";

export const SERVICE = { id: "demo-service", secret: "demo-service-secret" } as const;
export const LEGACY = { id: "demo-legacy", secret: "demo-legacy-secret" } as const;
export const ACME_API = { id: "acme-api", secret: "acme-api-secret" } as const;

export type FormResponse = Awaited<ReturnType<typeof postForm>>;

/** A confidential client entry for clients.yaml (secret stored as its SHA-256 hash). */
export function clientEntry(id: string, secret: string, grantTypes: string[], scopes: string[], extra: Record<string, unknown> = {}) {
  return {
    client_id: id,
    type: "confidential",
    client_secret_hash: hashSecret(secret),
    grant_types: grantTypes,
    allowed_scopes: scopes,
    ...extra,
  };
}

/**
 * Config edits (startTestProvider's `edits`) that append `items` to the list at `list` (a dotted path),
 * after whatever the demo config has there: the demo's own entries stay, however many there are.
 */
export function appendTo(list: string, items: unknown[]): Record<string, unknown> {
  return Object.fromEntries(items.map((item, i) => [`${list}.+${i}`, item]));
}

/** client_credentials with client_secret_post; the raw response. */
export function requestClientCredentials(p: TestProvider, client: { id: string; secret: string } = SERVICE, scope?: string) {
  return postForm(p.url + TOKEN, {
    grant_type: "client_credentials",
    client_id: client.id,
    client_secret: client.secret,
    ...(scope !== undefined && { scope }),
  });
}

/** A client_credentials access token; fails the test when none is issued. */
export async function clientCredentialsToken(
  p: TestProvider,
  client: { id: string; secret: string } = SERVICE,
  scope?: string,
): Promise<string> {
  const res = await requestClientCredentials(p, client, scope);
  expect(res.status, res.text).toBe(200);
  return res.json!.access_token as string;
}

/** The password grant with client_secret_post; the raw response. */
export function requestPassword(
  p: TestProvider,
  username: string,
  password: string,
  extra: Record<string, string> = {},
  client: { id: string; secret: string } = LEGACY,
) {
  return postForm(p.url + TOKEN, {
    grant_type: "password",
    client_id: client.id,
    client_secret: client.secret,
    username,
    password,
    ...extra,
  });
}

/** Introspects `token` as an API resource (Basic by default). */
export function introspect(p: TestProvider, token: string, resource: { id: string; secret: string } = ACME_API) {
  return postForm(p.url + INTROSPECT, { token }, { authorization: basic(resource.id, resource.secret) });
}

/** Revokes `token` as `client` with Basic, as the spec says. */
export function revoke(p: TestProvider, token: string, client: { id: string; secret: string }, hint?: string) {
  return postForm(
    p.url + REVOKE,
    { token, ...(hint !== undefined && { token_type_hint: hint }) },
    { authorization: basic(client.id, client.secret) },
  );
}

/** Verifies an access token with jose against the provider's published JWKS, as a resource server would. */
export async function verifyWithJwks(
  p: TestProvider,
  token: string,
): Promise<{ payload: JWTPayload & Record<string, unknown>; protectedHeader: JWTHeaderParameters }> {
  const jwks = (await (await fetch(p.url + JWKS)).json()) as Parameters<typeof createLocalJWKSet>[0];
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
    algorithms: ["RS256"],
    issuer: p.issuer,
    typ: "at+jwt",
  });
  return { payload: payload as JWTPayload & Record<string, unknown>, protectedHeader };
}

/** Decodes a compact JWS's header and payload without verifying. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token.split(".");
  const decode = (part: string | undefined) => JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  return { header: decode(header), payload: decode(payload) };
}

const STACK_FRAME = /\bat .*:\d+:\d+|node_modules|\/src\/|\.ts:\d+/;

/** Every error of the token, introspection and revocation endpoints: RFC 6749 §5.2 JSON, not cached, no internals. */
export function expectOAuthError(res: FormResponse, status: number, error: string): void {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error });
  expect(typeof res.json?.error_description).toBe("string");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expectNoInternals(res.text);
}

/** No stack frame, source path or dependency path in a response body. */
export function expectNoInternals(text: string): void {
  expect(text).not.toMatch(STACK_FRAME);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
