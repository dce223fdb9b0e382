/**
 * A small relying party on loopback for the browser tests: one node:http server per client (so each
 * client is its own origin), driven by openid-client v6 like a real application would be.
 *
 *   GET  /login          starts the code flow (PKCE S256, state, nonce); the provider's own query parameters
 *                        (PASSED_THROUGH: scope, prompt, max_age, login_hint, acr_values, login_type, fa, signature, ...)
 *                        pass through; rp_omit_login_type=1 makes this login's token request leave login_type out,
 *                        rp_omit_login_type=once sends one without it (its refusal goes to tokenErrors) before the one with it;
 *                        rp_endpoint=eid sends the browser to /eID/authorize instead of the authorize endpoint;
 *                        rp_par=1 pushes the request (RFC 9126, openid-client's buildAuthorizationUrlWithPAR) and sends
 *                        the browser with client_id and request_uri alone
 *   GET  /callback       takes the authorization response, redeems the code at the token endpoint over
 *                        HTTP (openid-client checks state, iss, nonce and the ID token's signature), repeating
 *                        the response's login_type there as the spec tells a client to (and, for a client
 *                        with `userinfo`, fetches userinfo with the access token), and shows
 *                        "signed in as <sub>", or "error: <code>" for an error response
 *   GET  /embed          a page that frames the provider: ?endpoint=authorize|iframe_authz&client=<id>
 *   GET  /logout         RP-initiated logout: end session with id_token_hint, post_logout_redirect_uri, state
 *   GET  /logged-out     the post-logout redirect URI; shows whether state came back as sent
 *   POST /backchannel    back-channel logout: verifies the logout token with jose against the provider's
 *                        JWKS and records it (200), or records why it was refused (400)
 *   GET  /frontchannel   front-channel logout: records the hit (iss, sid) and answers a blank page
 *   GET  /               "signed in as <sub>" or "not signed in"
 *
 * The RP keeps its own session in a cookie named `rp_<client_id>`; loopback cookies are shared by every
 * port, so the name must differ from the provider's cookies (and from the other client's).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from "jose";
import * as oidc from "openid-client";

export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";

export interface RpClientOptions {
  clientId: string;
  /** A confidential client's secret (client_secret_post); without one the client is public (PKCE only). */
  secret?: string;
  /** The client's position in clients.yaml, for the config edits. */
  configIndex: number;
  scope?: string;
  /** Also register a front-channel logout URI. */
  frontChannel?: boolean;
  /** Fetch userinfo after each token exchange (kept as RpSignIn.userinfo). */
  userinfo?: boolean;
}

/** A logout token the RP accepted: every check of Back-Channel Logout 1.0 §2.6 passed. */
export interface AcceptedLogoutToken {
  header: { alg?: string; typ?: string; kid?: string };
  claims: JWTPayload & { sid?: string; events?: Record<string, unknown>; nonce?: unknown };
}

/** What the RP's login left behind: the verified ID token's claims. */
export interface RpSignIn {
  sub: string;
  sid?: string;
  idToken: string;
  claims: Record<string, unknown>;
  /** The access token as issued, for a test that calls an API with it. */
  accessToken: string;
  /** The access token's claims when it is a JWT (read, not verified: the RP is not its audience). */
  accessTokenClaims?: Record<string, unknown>;
  /** The login_type the token request carried (absent: it carried none). */
  tokenLoginType?: string;
  /** rp_omit_login_type=once: the error_description of the refused token request without login_type. */
  refusedWithoutLoginType?: string;
  /** The userinfo response, for a client with `userinfo`. */
  userinfo?: Record<string, unknown>;
}

interface PendingLogin {
  verifier: string;
  nonce: string;
  loginTypeAtToken: LoginTypeAtToken;
}

/**
 * What the token request does with the authorization response's login_type: repeat it (as the spec
 * tells a client to), omit it (a client that forgets it), or omit it once and then repeat it — the
 * first request's refusal must leave the code usable for the second.
 */
export type LoginTypeAtToken = "repeat" | "omit" | "omit-once";
const LOGIN_TYPE_AT_TOKEN: Record<string, LoginTypeAtToken> = { "1": "omit", once: "omit-once" };

/** The authorize parameters a browser may give /login: OIDC's and the provider's login-policy ones. */
const PASSED_THROUGH = ["scope", "prompt", "max_age", "login_hint", "acr_values", "login_type", "fa", "signature", "lang", "ui_locales"];

export class RpClient {
  readonly options: RpClientOptions;
  readonly server: Server;
  readonly clientId: string;
  readonly origin: string;
  readonly logoutTokens: AcceptedLogoutToken[] = [];
  /** Logout tokens that failed verification, with the reason. */
  readonly refusedLogoutTokens: string[] = [];
  readonly frontChannelHits: URLSearchParams[] = [];
  readonly signIns: RpSignIn[] = [];
  /** The OAuth error code of each token request the provider refused (e.g. invalid_grant). */
  readonly tokenErrors: string[] = [];
  /** The `state` sent with each end-session request, and what came back to /logged-out. */
  readonly logoutStates: { sent: string[]; returned: Array<string | null> } = { sent: [], returned: [] };
  /** Other clients of the same RP, for /embed?client=<id> (a page of one client framing another's login). */
  peers = new Map<string, RpClient>();

  private config?: oidc.Configuration;
  private jwks?: ReturnType<typeof createRemoteJWKSet>;
  private issuer?: string;
  private readonly pending = new Map<string, PendingLogin>();
  private readonly sessions = new Map<string, RpSignIn>();

  constructor(options: RpClientOptions, server: Server) {
    this.options = options;
    this.server = server;
    this.clientId = options.clientId;
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  get redirectUri(): string {
    return `${this.origin}/callback`;
  }
  get postLogoutRedirectUri(): string {
    return `${this.origin}/logged-out`;
  }
  get backchannelUri(): string {
    return `${this.origin}/backchannel`;
  }
  get frontchannelUri(): string | undefined {
    return this.options.frontChannel ? `${this.origin}/frontchannel` : undefined;
  }
  private get cookieName(): string {
    return `rp_${this.clientId}`;
  }

  /** Where a browser starts this client's login; `params` pass through to the authorize request. */
  loginUrl(params: Record<string, string> = {}): string {
    return `${this.origin}/login${Object.keys(params).length ? `?${new URLSearchParams(params)}` : ""}`;
  }

  /** This client's page that frames a login of `client` (default: itself) at the given endpoint. */
  embedUrl(endpoint: "authorize" | "iframe_authz", client: string = this.clientId): string {
    return `${this.origin}/embed?${new URLSearchParams({ endpoint, client })}`;
  }

  logoutUrl(): string {
    return `${this.origin}/logout`;
  }

  /** Discovers the provider (insecure HTTP on loopback; ID-token signatures checked). */
  async connect(issuer: string): Promise<void> {
    const auth = this.options.secret === undefined ? oidc.None() : oidc.ClientSecretPost(this.options.secret);
    this.config = await oidc.discovery(new URL(issuer), this.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
    oidc.enableNonRepudiationChecks(this.config);
    this.jwks = createRemoteJWKSet(new URL(this.config.serverMetadata().jwks_uri!));
    this.issuer = this.config.serverMetadata().issuer;
  }

  /** A fresh authorization request URL (PKCE S256, state, nonce) at the provider's authorize, iframe_authz or eID endpoint; `pushed`: by RFC 9126 PAR. */
  async authorizationUrl(
    params: Record<string, string> = {},
    endpoint: AuthorizeEndpoint = "authorize",
    loginTypeAtToken: LoginTypeAtToken = "repeat",
    pushed = false,
  ): Promise<string> {
    const config = this.requireConfig();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    this.pending.set(state, { verifier, nonce, loginTypeAtToken });
    const request = {
      redirect_uri: this.redirectUri,
      scope: this.options.scope ?? "openid profile",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
      ...params,
    };
    const url = pushed ? await oidc.buildAuthorizationUrlWithPAR(config, request) : oidc.buildAuthorizationUrl(config, request);
    if (endpoint !== "authorize") url.pathname = ENDPOINT_PATHS[endpoint];
    return url.href;
  }

  /** The RP's request handler. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.origin);
    switch (`${req.method} ${url.pathname}`) {
      case "GET /":
        return this.home(req, res);
      case "GET /login":
        return redirect(
          res,
          await this.authorizationUrl(
            pick(url.searchParams, PASSED_THROUGH),
            url.searchParams.get("rp_endpoint") === "eid" ? "eid" : "authorize",
            LOGIN_TYPE_AT_TOKEN[url.searchParams.get("rp_omit_login_type") ?? ""] ?? "repeat",
            url.searchParams.get("rp_par") === "1",
          ),
        );
      case "GET /callback":
        return this.callback(url, res);
      case "GET /embed":
        return this.embed(url, res);
      case "GET /logout":
        return this.logout(req, res);
      case "GET /logged-out":
        this.logoutStates.returned.push(url.searchParams.get("state"));
        return page(res, 200, `<p id="status">logged out of ${escapeHtml(this.clientId)}</p>`);
      case "POST /backchannel":
        return this.backchannel(req, res);
      case "GET /frontchannel":
        this.frontChannelHits.push(url.searchParams);
        return page(res, 200, "<p>front-channel logout</p>");
      default:
        return page(res, 404, "<p>not found</p>");
    }
  }

  private home(req: IncomingMessage, res: ServerResponse): void {
    const session = this.sessions.get(readCookie(req, this.cookieName) ?? "");
    page(res, 200, session ? `<p id="status">signed in as ${escapeHtml(session.sub)}</p>` : `<p id="status">not signed in</p>`);
  }

  /** The authorization response: an error is shown as such; a code is redeemed by openid-client. */
  private async callback(url: URL, res: ServerResponse): Promise<void> {
    const state = url.searchParams.get("state") ?? "";
    const pending = this.pending.get(state);
    this.pending.delete(state);
    const error = url.searchParams.get("error");
    if (error !== null)
      return page(res, 200, `<p id="status">error: ${escapeHtml(error)}</p><p id="state">${pending ? "state ok" : "unknown state"}</p>`);
    if (!pending) return page(res, 400, `<p id="status">unknown state</p>`);
    const loginType = url.searchParams.get("login_type");
    // The spec: a login_type that came back with the code goes with the token request too.
    const tokenLoginType = loginType !== null && pending.loginTypeAtToken !== "omit" ? loginType : undefined;
    const exchange = (withLoginType: string | undefined) =>
      oidc.authorizationCodeGrant(
        this.requireConfig(),
        url,
        { pkceCodeVerifier: pending.verifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true },
        withLoginType !== undefined ? { login_type: withLoginType } : undefined,
      );
    try {
      // Expected to be refused; should it pass, the code is used and the request with login_type fails.
      const refusedWithoutLoginType =
        pending.loginTypeAtToken === "omit-once" && tokenLoginType !== undefined
          ? await exchange(undefined).then(
              () => undefined,
              (err: unknown) => this.recordTokenError(err).error_description ?? "",
            )
          : undefined;
      const tokens = await exchange(tokenLoginType);
      const claims = tokens.claims()!;
      const signIn: RpSignIn = {
        sub: claims.sub,
        sid: claims.sid as string | undefined,
        idToken: tokens.id_token!,
        claims: { ...claims },
        accessToken: tokens.access_token,
        ...jwtClaims(tokens.access_token),
        ...(tokenLoginType !== undefined && { tokenLoginType }),
        ...(refusedWithoutLoginType !== undefined && { refusedWithoutLoginType }),
        ...(this.options.userinfo && {
          userinfo: { ...(await oidc.fetchUserInfo(this.requireConfig(), tokens.access_token, claims.sub)) },
        }),
      };
      this.signIns.push(signIn);
      const cookie = randomBytes(16).toString("base64url");
      this.sessions.set(cookie, signIn);
      res.setHeader("Set-Cookie", `${this.cookieName}=${cookie}; Path=/; HttpOnly; SameSite=Lax`);
      page(res, 200, `<p id="status">signed in as ${escapeHtml(claims.sub)}</p>`);
    } catch (err) {
      const e = this.recordTokenError(err);
      page(res, 500, `<p id="status">token exchange failed: ${escapeHtml(`${e.name} ${e.code ?? ""} ${e.error ?? ""} ${e.message}`)}</p>`);
    }
  }

  /** Keeps the OAuth error of a refused token request in tokenErrors. */
  private recordTokenError(err: unknown): Error & { error?: string; error_description?: string; code?: string } {
    const e = err as Error & { error?: string; error_description?: string; code?: string };
    if (e.error !== undefined) this.tokenErrors.push(e.error);
    return e;
  }

  private async embed(url: URL, res: ServerResponse): Promise<void> {
    const endpoint = url.searchParams.get("endpoint") === "iframe_authz" ? "iframe_authz" : "authorize";
    const target = this.peers.get(url.searchParams.get("client") ?? this.clientId) ?? this;
    const src = await target.authorizationUrl({}, endpoint);
    page(
      res,
      200,
      `<h1>${escapeHtml(this.clientId)} portal</h1><iframe id="login" src="${escapeHtml(src)}" width="480" height="480"></iframe>`,
    );
  }

  /** RP-initiated logout of the RP's own session (its ID token is the hint). */
  private logout(req: IncomingMessage, res: ServerResponse): void {
    const cookie = readCookie(req, this.cookieName) ?? "";
    const session = this.sessions.get(cookie);
    if (!session) return page(res, 400, `<p id="status">not signed in</p>`);
    this.sessions.delete(cookie);
    const state = oidc.randomState();
    this.logoutStates.sent.push(state);
    const url = oidc.buildEndSessionUrl(this.requireConfig(), {
      id_token_hint: session.idToken,
      post_logout_redirect_uri: this.postLogoutRedirectUri,
      state,
    });
    res.setHeader("Set-Cookie", `${this.cookieName}=; Path=/; Max-Age=0`);
    redirect(res, url.href);
  }

  /** Back-Channel Logout 1.0 §2.6: validate the logout token, then end the RP sessions it names. */
  private async backchannel(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const token = form.get("logout_token");
    try {
      if (token === null) throw new Error("no logout_token");
      const { payload, protectedHeader } = await jwtVerify(token, this.jwks!, {
        algorithms: ["RS256"],
        issuer: this.issuer,
        audience: this.clientId,
        typ: "logout+jwt",
        requiredClaims: ["iat", "jti", "events"],
        maxTokenAge: "2 minutes",
      });
      const claims = payload as AcceptedLogoutToken["claims"];
      const events = claims.events;
      if (typeof events !== "object" || events === null || typeof events[BACKCHANNEL_LOGOUT_EVENT] !== "object")
        throw new Error("no back-channel logout event");
      if (claims.sub === undefined && claims.sid === undefined) throw new Error("neither sub nor sid");
      if ("nonce" in claims) throw new Error("a nonce in a logout token");
      this.logoutTokens.push({ header: protectedHeader, claims });
      for (const [cookie, session] of this.sessions)
        if (session.sid === claims.sid || (claims.sid === undefined && session.sub === claims.sub)) this.sessions.delete(cookie);
      res.writeHead(200, { "Cache-Control": "no-store" }).end();
    } catch (err) {
      this.refusedLogoutTokens.push((err as Error).message);
      res
        .writeHead(400, { "Content-Type": "application/json", "Cache-Control": "no-store" })
        .end(JSON.stringify({ error: "invalid_request" }));
    }
  }

  private requireConfig(): oidc.Configuration {
    if (!this.config) throw new Error(`relying party ${this.clientId} is not connected to a provider (call connect)`);
    return this.config;
  }
}

type AuthorizeEndpoint = "authorize" | "iframe_authz" | "eid";
const ENDPOINT_PATHS: Record<AuthorizeEndpoint, string> = {
  authorize: "/connect/authorize",
  iframe_authz: "/connect/iframe_authz",
  eid: "/eID/authorize",
};

export interface RelyingParty {
  clients: RpClient[];
  client(clientId: string): RpClient;
  /** clients.yaml edits that point each client's redirect, post-logout and logout URIs at this RP. */
  configEdits(): Record<string, unknown>;
  /** Discovers the provider for every client; call once the provider runs. */
  connect(issuer: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts one loopback server per client. The provider is started afterwards with `configEdits()`. */
export async function startRelyingParty(options: RpClientOptions[]): Promise<RelyingParty> {
  const clients: RpClient[] = [];
  for (const option of options) {
    let client: RpClient | undefined;
    const server = createServer((req, res) => {
      client!.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) page(res, 500, `<p id="status">relying party error: ${escapeHtml((err as Error).message)}</p>`);
        else res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    client = new RpClient(option, server);
    clients.push(client);
  }
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  for (const client of clients) client.peers = byId;
  return {
    clients,
    client(clientId) {
      const found = byId.get(clientId);
      if (!found) throw new Error(`no relying-party client ${clientId}`);
      return found;
    },
    configEdits() {
      const edits: Record<string, unknown> = {};
      for (const c of clients) {
        const at = `clients.${c.options.configIndex}`;
        edits[`${at}.redirect_uris`] = [c.redirectUri];
        edits[`${at}.post_logout_redirect_uris`] = [c.postLogoutRedirectUri];
        edits[`${at}.backchannel_logout_uri`] = c.backchannelUri;
        if (c.frontchannelUri !== undefined) edits[`${at}.frontchannel_logout_uri`] = c.frontchannelUri;
      }
      return edits;
    },
    async connect(issuer) {
      await Promise.all(clients.map((c) => c.connect(issuer)));
    },
    async close() {
      await Promise.all(
        clients.map((c) => {
          c.server.closeAllConnections();
          return new Promise<void>((resolve) => c.server.close(() => resolve()));
        }),
      );
    },
  };
}

/** Polls until `check` holds (or throws with `what` after `timeoutMs`). */
export async function eventually(check: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function page(res: ServerResponse, status: number, body: string): void {
  const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>relying party</title></head><body>${body}</body></html>`;
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(html),
  });
  res.end(html);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { Location: location, "Cache-Control": "no-store", "Content-Length": 0 });
  res.end();
}

function pick(params: URLSearchParams, names: string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value !== null) picked[name] = value;
  }
  return picked;
}

/** `{ accessTokenClaims }` when the access token is a JWT; nothing for an opaque one. */
function jwtClaims(accessToken: string): Pick<RpSignIn, "accessTokenClaims"> {
  try {
    return { accessTokenClaims: { ...decodeJwt(accessToken) } };
  } catch {
    return {};
  }
}

function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += String(chunk);
  return body;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
