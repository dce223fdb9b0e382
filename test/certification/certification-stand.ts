/**
 * The stand the certification tests run against, shaped like the OpenID Foundation's conformance suite
 * sees a deployment: the provider's issuer on https (a TLS front with a private CA before a provider on
 * loopback), discovery read from that issuer, static clients registered the way the suite's static-client
 * configuration expects (redirect, post-logout, back- and front-channel URIs on the suite's paths), and
 * those URIs served by a recording RP on loopback https that keeps every request it receives. The tests
 * log in over raw HTTP (password form as alice) and do the requests and checks each module describes.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { expect } from "vitest";
import { hashSecret } from "../../src/crypto/secret-hash.ts";
import { submitPassword } from "../support/browser-login.ts";
import { expectedAtHash } from "../support/code-grant.ts";
import { attributeValue, RawBrowser, type Answer } from "../support/raw-browser.ts";
import { freePort } from "../support/services.ts";
import { makeTestCertificates, type TestCertificates } from "../support/test-certificates.ts";
import { startTlsFront, type TlsFront } from "../support/tls-front.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/** A static client as registered for a plan (the suite's "client" and "client2", and the logout plans' clients). */
export interface StaticClient {
  id: string;
  secret: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
}

/** One request the recording RP received. */
export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
}

/** The suite's callback paths under one test alias, served by the recording RP. */
const RP_PATHS = {
  callback: "callback",
  postLogout: "post_logout_redirect",
  backChannel: "backchannel_logout",
  frontChannel: "frontchannel_logout",
} as const;

export type ClientName = "basic" | "second" | "backChannel" | "frontChannel";

export interface CertificationStand {
  issuer: string;
  provider: TestProvider;
  discovery: Record<string, unknown>;
  clients: Record<ClientName, StaticClient>;
  /** Everything the recording RP received, in order. */
  received: Received[];
  /** Moves the provider's clock on (the suite's waits: max_age=1, code reuse after 30 seconds) without waiting. */
  advanceClock(seconds: number): void;
  /** The provider's clock (milliseconds), for codes computed as a phone would at that moment. */
  now(): number;
  /** The requests the RP received on one of the suite's paths of a client. */
  receivedAt(client: StaticClient, path: keyof typeof RP_PATHS): Received[];
  close(): Promise<void>;
}

/** The clients each plan's static configuration names, with what they register beyond redirect_uris. */
const CLIENTS: Record<ClientName, { id: string; logout?: "backchannel_logout_uri" | "frontchannel_logout_uri" }> = {
  basic: { id: "cert-client" },
  second: { id: "cert-client2" },
  backChannel: { id: "cert-backchannel", logout: "backchannel_logout_uri" },
  frontChannel: { id: "cert-frontchannel", logout: "frontchannel_logout_uri" },
};

/** The scopes the suite's modules ask for that this deployment serves (the rest are not advertised). */
const CLIENT_SCOPES = ["openid", "profile", "email", "offline_access"];

/**
 * Starts the RP (its TLS front first, so its https origin is known for the registrations), then the
 * provider behind its own TLS front with the issuer `https://127.0.0.1:<front>`, and reads discovery.
 * The test CA is added to this worker's default trust, so fetch (and jose) reach both fronts as a client would.
 */
export async function startCertificationStand(): Promise<CertificationStand> {
  const certificates = await makeTestCertificates();
  // The CA's certificate (what a client trusts): the server certificate alone would make no chain.
  setDefaultCACertificates([...getCACertificates("default"), readFileSync(certificates.caFile, "utf8")]);
  const received: Received[] = [];
  const rp = await startRecordingRp(received);
  const rpFront = await startTlsFront({ targetPort: rp.port, key: certificates.key, cert: certificates.cert });
  const rpOrigin = `https://127.0.0.1:${rpFront.port}`;
  const at = (alias: string, path: string) => `${rpOrigin}/test/a/${alias}/${path}`;

  const clients = {} as Record<ClientName, StaticClient>;
  const registrations: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(CLIENTS) as Array<[ClientName, (typeof CLIENTS)[ClientName]]>) {
    const secret = `${spec.id}-secret-${randomBytes(8).toString("hex")}`;
    clients[name] = {
      id: spec.id,
      secret,
      redirectUri: at(spec.id, RP_PATHS.callback),
      postLogoutRedirectUri: at(spec.id, RP_PATHS.postLogout),
    };
    registrations[`clients.+${name}`] = {
      client_id: spec.id,
      name: `Certification ${name} client`,
      type: "confidential",
      client_secret_hash: hashSecret(secret),
      grant_types: ["authorization_code", "refresh_token"],
      redirect_uris: [clients[name].redirectUri],
      post_logout_redirect_uris: [clients[name].postLogoutRedirectUri],
      allowed_scopes: CLIENT_SCOPES,
      offline_access: true,
      // The suite validates OIDC Core §5.1's birthdate (YYYY-MM-DD); the group's clients keep the spec's yyyy/MM/dd.
      birthdate_format: "oidc",
      ...(spec.logout === "backchannel_logout_uri" && { backchannel_logout_uri: at(spec.id, RP_PATHS.backChannel) }),
      ...(spec.logout === "frontchannel_logout_uri" && { frontchannel_logout_uri: at(spec.id, RP_PATHS.frontChannel) }),
    };
  }

  const providerPort = await freePort();
  const front = await startTlsFront({ targetPort: providerPort, key: certificates.key, cert: certificates.cert });
  const issuer = `https://127.0.0.1:${front.port}`;
  let offsetMs = 0;
  const provider = await startTestProvider({
    issuer,
    clock: () => Date.now() + offsetMs,
    edits: { "provider.yaml": { "listen.port": providerPort }, "clients.yaml": registrations },
  });
  const discovery = await send(`${issuer}/.well-known/openid-configuration`);
  expect(discovery.status, discovery.text).toBe(200);

  return {
    issuer,
    provider,
    discovery: discovery.json!,
    clients,
    received,
    now: () => Date.now() + offsetMs,
    advanceClock: (seconds) => {
      offsetMs += seconds * 1000;
    },
    receivedAt: (client, path) => received.filter((r) => r.path === new URL(at(client.id, RP_PATHS[path])).pathname),
    close: () => closeAll(provider, [front, rpFront], rp.server, certificates),
  };
}

async function closeAll(provider: TestProvider, fronts: TlsFront[], rp: Server, certificates: TestCertificates): Promise<void> {
  await provider.close();
  await Promise.all(fronts.map((f) => f.close()));
  rp.closeAllConnections();
  await new Promise<void>((resolve) => rp.close(() => resolve()));
  certificates.remove();
}

/** A plain HTTP server that records every request and answers 200 with a blank page (the TLS front makes it https). */
async function startRecordingRp(received: Received[]): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://rp");
      received.push({
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        contentType: req.headers["content-type"],
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res
        .writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" })
        .end("<!DOCTYPE html><title>rp</title>");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** An authorization request as the suite makes it: fresh state and nonce, `params` add, replace or (undefined) remove. */
export interface AuthorizationRequest {
  url: string;
  client: StaticClient;
  state?: string | undefined;
  nonce?: string | undefined;
  redirectUri: string;
}

export function authorizationRequest(
  stand: CertificationStand,
  client: StaticClient,
  params: Record<string, string | undefined> = {},
): AuthorizationRequest {
  const all: Record<string, string | undefined> = {
    client_id: client.id,
    redirect_uri: client.redirectUri,
    response_type: "code",
    scope: "openid",
    state: randomBytes(12).toString("base64url"),
    nonce: randomBytes(12).toString("base64url"),
    ...params,
  };
  const url = new URL(stand.discovery.authorization_endpoint as string);
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return { url: url.href, client, state: all.state, nonce: all.nonce, redirectUri: all.redirect_uri ?? client.redirectUri };
}

/** True for a page of the login flow (the password form, or a method choice that offers it). */
export const isLoginPage = (answer: Answer) => answer.status === 200 && /name="(password|method)"/.test(answer.text);

/**
 * Sends the browser to the request (GET, or POST with the parameters as a form), logs alice in on the
 * password form when the provider asks for a login, and returns what leaves the provider: a redirect to
 * the client, a form_post page, or a page of the provider's own (an error, say). `loggedIn` says whether
 * a login form was shown.
 */
export async function runAuthorization(
  browser: RawBrowser,
  request: AuthorizationRequest,
  options: { method?: "GET" | "POST"; login?: boolean } = {},
): Promise<{ answer: Answer; loginShown: boolean }> {
  const url = new URL(request.url);
  const started =
    options.method === "POST"
      ? await browser.post(url.origin + url.pathname, Object.fromEntries(url.searchParams))
      : await browser.get(request.url);
  let answer = await browser.follow(started);
  const loginShown = isLoginPage(answer);
  if (loginShown && options.login !== false)
    answer = await browser.follow(await submitPassword(browser, answer, "alice", "alice-password"));
  return { answer, loginShown };
}

/** The authorization response parameters a redirect to the client carries in its query. */
export function redirectParams(answer: Answer, request: AuthorizationRequest): URLSearchParams {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  const location = new URL(answer.location!);
  expect(location.origin + location.pathname).toBe(request.redirectUri);
  expect(location.hash).toBe("");
  return location.searchParams;
}

/**
 * A form_post page submitted the way a browser submits it (POST, urlencoded, to its action), checked
 * for the action being the redirect_uri; the parameters are what the RP received.
 */
export async function submitFormPost(
  stand: CertificationStand,
  browser: RawBrowser,
  answer: Answer,
  request: AuthorizationRequest,
): Promise<URLSearchParams> {
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const action = /<form id="form-post" method="post" action="([^"]+)"/.exec(answer.text);
  expect(action, answer.text.slice(0, 300)).not.toBeNull();
  expect(attributeValue(action![1]!)).toBe(request.redirectUri);
  const fields: Record<string, string> = {};
  for (const match of answer.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[attributeValue(match[1]!)] = attributeValue(match[2]!);
  const before = stand.received.length;
  const posted = await browser.post(request.redirectUri, fields);
  expect(posted.status).toBe(200);
  const callback = stand.received.slice(before).find((r) => r.path === new URL(request.redirectUri).pathname);
  expect(callback?.method, "the callback is a POST (OAuth 2.0 Form Post §2)").toBe("POST");
  expect(callback?.contentType).toBe("application/x-www-form-urlencoded");
  return new URLSearchParams(callback!.body);
}

/**
 * The suite's checks of a successful authorization response: the state comes back as sent, iss (RFC
 * 9207) is the issuer, a code and no error; the code is returned.
 */
export function expectCodeResponse(stand: CertificationStand, params: URLSearchParams, request: AuthorizationRequest): string {
  expect(params.get("error"), params.get("error_description") ?? "").toBeNull();
  expect(params.get("state")).toBe(request.state ?? null);
  expect(params.get("iss")).toBe(stand.issuer);
  const code = params.get("code");
  expect(code).toBeTruthy();
  return code!;
}

/**
 * The suite's checks of an error response (OIDC Core §3.1.2.6): the error code, state as sent, iss,
 * no code, and error_description of the characters RFC 6749 §4.1.2.1 allows.
 */
export function expectErrorResponse(
  stand: CertificationStand,
  params: URLSearchParams,
  request: AuthorizationRequest,
  errors: string[],
): void {
  expect(errors).toContain(params.get("error"));
  expect(params.get("state")).toBe(request.state ?? null);
  expect(params.get("iss")).toBe(stand.issuer);
  expect(params.get("code")).toBeNull();
  // Nothing beyond the error response's own parameters (the suite warns on others).
  expect([...params.keys()].filter((name) => !["error", "error_description", "error_uri", "state", "iss"].includes(name))).toEqual([]);
  const description = params.get("error_description");
  if (description !== null) expect(description).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/);
}

export type ClientAuth = "client_secret_basic" | "client_secret_post";

/** The token request for a code, with the client authenticating as `auth` says; `extra` adds fields. */
export function tokenRequest(
  stand: CertificationStand,
  client: StaticClient,
  form: Record<string, string>,
  auth: ClientAuth = "client_secret_basic",
) {
  const endpoint = stand.discovery.token_endpoint as string;
  return auth === "client_secret_basic"
    ? postForm(endpoint, form, { authorization: basic(client.id, client.secret) })
    : postForm(endpoint, { ...form, client_id: client.id, client_secret: client.secret });
}

export function redeemCode(
  stand: CertificationStand,
  request: AuthorizationRequest,
  code: string,
  auth: ClientAuth = "client_secret_basic",
  extra: Record<string, string> = {},
) {
  return tokenRequest(stand, request.client, { grant_type: "authorization_code", code, redirect_uri: request.redirectUri, ...extra }, auth);
}

export interface Tokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  id_token: string;
  refresh_token?: string;
  scope?: string;
}

/** The suite's token response checks: 200, no-store, a Bearer access token, expires_in a positive number, an ID token. */
export function expectTokenResponse(answer: Awaited<ReturnType<typeof postForm>>): Tokens {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  expect(answer.headers.get("cache-control")).toContain("no-store");
  const tokens = answer.json as unknown as Tokens;
  expect(tokens.access_token).toEqual(expect.any(String));
  expect(tokens.token_type.toLowerCase()).toBe("bearer");
  if (tokens.expires_in !== undefined) expect(tokens.expires_in).toBeGreaterThan(0);
  expect(tokens.id_token).toEqual(expect.any(String));
  return tokens;
}

export type IdTokenClaims = JWTPayload & Record<string, unknown>;

/**
 * The suite's ID token checks (OIDC Core §3.1.3.7 and the module's): signed with RS256 by a key of the
 * published JWKS that the header names by kid, iss the issuer, aud the client (azp when there are
 * several), exp in the future, iat present, sub, the nonce sent, auth_time a number where present, and
 * at_hash (when present) the left half of the access token's SHA-256.
 */
export async function expectIdToken(
  stand: CertificationStand,
  idToken: string,
  request: AuthorizationRequest,
  accessToken?: string,
): Promise<IdTokenClaims> {
  const header = decodeProtectedHeader(idToken);
  expect(header.alg).toBe("RS256");
  expect(header.kid).toEqual(expect.any(String));
  const jwks = createRemoteJWKSet(new URL(stand.discovery.jwks_uri as string));
  const { payload } = await jwtVerify(idToken, jwks, { issuer: stand.issuer, audience: request.client.id, algorithms: ["RS256"] });
  if (Array.isArray(payload.aud) && payload.aud.length > 1) expect(payload.azp).toBe(request.client.id);
  expect(payload.sub).toEqual(expect.any(String));
  expect(payload.iat).toEqual(expect.any(Number));
  expect(payload.exp).toBeGreaterThan(Date.now() / 1000);
  if (request.nonce !== undefined) expect(payload.nonce).toBe(request.nonce);
  else expect(payload.nonce).toBeUndefined();
  if (payload.auth_time !== undefined) expect(payload.auth_time).toEqual(expect.any(Number));
  if (payload.at_hash !== undefined && accessToken !== undefined) {
    expect(payload.at_hash).toBe(expectedAtHash(accessToken));
  }
  return payload as IdTokenClaims;
}

/** A whole code flow as most modules run it: authorize (logging in when asked), redeem, check. */
export async function codeFlow(
  stand: CertificationStand,
  browser: RawBrowser,
  request: AuthorizationRequest,
  options: { auth?: ClientAuth; formPost?: boolean; method?: "GET" | "POST"; tokenExtra?: Record<string, string> } = {},
): Promise<{ tokens: Tokens; claims: IdTokenClaims; loginShown: boolean; code: string }> {
  const { answer, loginShown } = await runAuthorization(browser, request, options.method ? { method: options.method } : {});
  const params = options.formPost ? await submitFormPost(stand, browser, answer, request) : redirectParams(answer, request);
  const code = expectCodeResponse(stand, params, request);
  const tokens = expectTokenResponse(await redeemCode(stand, request, code, options.auth, options.tokenExtra));
  const claims = await expectIdToken(stand, tokens.id_token, request, tokens.access_token);
  return { tokens, claims, loginShown, code };
}

/** The UserInfo request the suite makes: GET with a Bearer header (default), POST with the header, or POST with the token in the body. */
export function userinfo(stand: CertificationStand, accessToken: string, how: "get" | "post-header" | "post-body" = "get") {
  const endpoint = stand.discovery.userinfo_endpoint as string;
  if (how === "get") return send(endpoint, { headers: { authorization: `Bearer ${accessToken}` } });
  if (how === "post-header") return postForm(endpoint, {}, { authorization: `Bearer ${accessToken}` });
  return postForm(endpoint, { access_token: accessToken });
}

/** The suite's UserInfo checks: 200, JSON, the ID token's sub. */
export function expectUserinfo(answer: Awaited<ReturnType<typeof send>>, claims: IdTokenClaims): Record<string, unknown> {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  expect(answer.json!.sub).toBe(claims.sub);
  return answer.json!;
}

export { RawBrowser };

/** alice signed in at `client` in a new browser (the first half of every logout module). */
export async function signedIn(stand: CertificationStand, client: StaticClient) {
  const browser = new RawBrowser();
  const request = authorizationRequest(stand, client);
  const flow = await codeFlow(stand, browser, request);
  return { browser, idToken: flow.tokens.id_token, claims: flow.claims };
}

/** The browser sent to the end-session endpoint with `params` (GET, as the suite redirects). */
export function endSession(stand: CertificationStand, browser: RawBrowser, params: Record<string, string>): Promise<Answer> {
  const url = new URL(stand.discovery.end_session_endpoint as string);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return browser.get(url.href);
}

/** The logout confirmation page (no valid hint): the user confirms; the answer to the confirmation. */
export async function confirmLogout(browser: RawBrowser, page: Answer): Promise<Answer> {
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  expect(page.text).toContain('name="confirm" value="yes"');
  const action = /<form method="post" action="([^"]+)"/.exec(page.text);
  expect(action).not.toBeNull();
  const csrf = /<input type="hidden" name="csrf" value="([^"]+)"/.exec(page.text);
  return browser.post(new URL(attributeValue(action![1]!), page.url).href, { csrf: csrf![1]!, confirm: "yes" });
}

/** The logged-out page of the provider: 200, no redirect, the heading. */
export function expectLoggedOutPage(answer: Answer): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  expect(answer.location).toBeUndefined();
  expect(answer.text).toContain("page-logged-out");
}

/** A page of the provider's own that refuses the logout request: no redirect anywhere. */
export function expectLogoutRefused(answer: Answer): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(400);
  expect(answer.location).toBeUndefined();
}

/**
 * The suite's last step of a logout module: a prompt=none request in the same browser must come back
 * with an error that needs the user (OIDC Core §3.1.2.6), as the session is gone.
 */
export async function expectSignedOut(stand: CertificationStand, browser: RawBrowser, client: StaticClient): Promise<void> {
  const request = authorizationRequest(stand, client, { prompt: "none" });
  const params = redirectParams(await browser.follow(await browser.get(request.url)), request);
  expectErrorResponse(stand, params, request, ["login_required", "interaction_required", "consent_required", "account_selection_required"]);
}

/** The opposite: the session is still there, prompt=none gets a code. */
export async function expectStillSignedIn(stand: CertificationStand, browser: RawBrowser, client: StaticClient): Promise<void> {
  const request = authorizationRequest(stand, client, { prompt: "none" });
  expectCodeResponse(stand, redirectParams(await browser.follow(await browser.get(request.url)), request), request);
}
