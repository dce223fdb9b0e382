import { createHash, randomBytes } from "node:crypto";
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { DEMO_WEB, type CodeFlowClient, type DemoUser } from "./demo-accounts.ts";
import type { SessionSource } from "./load-protocol.ts";

/**
 * The authorization code flow as a browser and the demo-web client go through it, over node:http
 * keep-alive connections. Shared by the code-flow load generator (workers/flow-generator.ts) and the
 * bench itself (preflight, and the access token the userinfo scenario presents), so that what is
 * checked before the load is exactly what runs under it.
 */

export const AUTHORIZE_PATH = "/connect/authorize";
export const TOKEN_PATH = "/connect/token";
export const USERINFO_PATH = "/connect/userinfo";
/**
 * The code-flow ceiling's bench-only way to an SSO session (workers/ceiling-code-flow.ts has no login
 * page): POST a form with `username`, get a session cookie. The provider has no such path.
 */
export const BENCH_SESSION_PATH = "/bench/session";
export const BENCH_SESSION_COOKIE = "bench_session";

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends one request of a flow; `step` names it (for per-step latencies and status counts). */
export type Send = (
  step: string,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string>,
  body?: string,
) => Promise<HttpResponse>;

/** A request that got no answer in time (the bench counts timeouts apart from connection errors). */
export class RequestTimeout extends Error {}

/** A response a browser or client would not have expected at this step: the flow failed there. */
export class FlowError extends Error {
  readonly step: string;
  readonly status: number;

  constructor(step: string, status: number, detail: string) {
    super(`${step}: ${detail}`);
    this.step = step;
    this.status = status;
  }
}

/** node:http requests to `baseUrl` over `agent` (one keep-alive connection per virtual user). */
export function httpSender(baseUrl: string, agent: Agent, timeoutMs = 10_000): Send {
  const { hostname, port } = new URL(baseUrl);
  return (_step, method, path, headers, body) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          method,
          path,
          agent,
          headers: body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) },
        },
        (res) => {
          let data = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (data += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
          res.on("error", reject);
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new RequestTimeout(`${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.on("error", reject);
      req.end(body);
    });
}

/** One keep-alive connection, as a browser (or a virtual user) keeps to the provider. */
export function oneConnection(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1 });
}

/** Just enough of a browser's cookie store: name, value and path; no domains (one host), no expiry times. */
export class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(setCookie: string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = "/";
      let expired = value === "";
      for (const attribute of attributes) {
        const [key = "", val = ""] = attribute.split("=").map((s) => s.trim());
        if (key.toLowerCase() === "path" && val.startsWith("/")) path = val;
        if (key.toLowerCase() === "max-age" && Number(val) <= 0) expired = true;
        if (key.toLowerCase() === "expires" && Date.parse(val) <= Date.now()) expired = true;
      }
      const key = `${name};${path}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }

  /** The Cookie header a browser sends with a request for `path` (empty object when none applies). */
  headerFor(path: string): Record<string, string> {
    const pathname = path.split("?")[0]!;
    const applicable = [...this.cookies.values()].filter((c) => c.path === "/" || pathname === c.path || pathname.startsWith(`${c.path}/`));
    return applicable.length === 0 ? {} : { cookie: applicable.map((c) => `${c.name}=${c.value}`).join("; ") };
  }

  has(name: string): boolean {
    return [...this.cookies.values()].some((c) => c.name === name);
  }
}

/** A PKCE S256 pair (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface FlowRequest {
  /** demo-web when not given. */
  client?: CodeFlowClient;
  scope: string;
  state: string;
  nonce: string;
  pkce?: { verifier: string; challenge: string };
}

export interface Tokens {
  id_token: string;
  access_token: string;
  [member: string]: unknown;
}

/**
 * What a browser does between the client's redirect to /connect/authorize and the client's callback.
 * `send` is shared by every browser on the same connection; each browser has its own cookie jar.
 */
export class Browser {
  private readonly send: Send;
  /** Its cookies: a fresh browser has none; a browser that logged in holds its SSO session here. */
  readonly jar: CookieJar;

  constructor(send: Send, jar = new CookieJar()) {
    this.send = send;
    this.jar = jar;
  }

  /**
   * GET /connect/authorize. With a live SSO session: the code (303 to the redirect_uri). Without:
   * the login page's path (303 to /interaction/<id>, with the interaction cookie scoped to it).
   */
  async authorize(flow: FlowRequest): Promise<{ code: string } | { loginPage: string }> {
    const client = flow.client ?? DEMO_WEB;
    const query = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: "code",
      scope: flow.scope,
      state: flow.state,
      nonce: flow.nonce,
      ...(flow.pkce ? { code_challenge: flow.pkce.challenge, code_challenge_method: "S256" } : {}),
    });
    const path = `${AUTHORIZE_PATH}?${query}`;
    const res = await this.get("authorize", path);
    const location = expectRedirect("authorize", res);
    if (location.startsWith("/interaction/")) return { loginPage: location };
    return { code: codeFrom("authorize", res, location, flow.state, client) };
  }

  /** The login page, then its password form (demo-web's login): the code, and the browser now holds an SSO session cookie. */
  async logIn(loginPage: string, user: DemoUser, state: string): Promise<string> {
    const page = await this.get("login page", loginPage);
    if (page.status !== 200) throw new FlowError("login page", page.status, `expected 200, got ${page.status}: ${page.body.slice(0, 200)}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    if (!csrf) throw new FlowError("login page", page.status, "the page has no hidden csrf field");
    const form = new URLSearchParams({ csrf, event: "SUBMIT_PASSWORD", username: user.username, password: user.password }).toString();
    const res = await this.post("password", loginPage, { "content-type": "application/x-www-form-urlencoded" }, form);
    if (res.status === 200)
      throw new FlowError(
        "password",
        res.status,
        "the login page came back: wrong password, or the account is locked (too many logins in flight for one user?)",
      );
    const location = expectRedirect("password", res);
    const [step, done, callback] = location.startsWith(`${DEMO_WEB.redirectUri}?`)
      ? ["password", res, location]
      : (["resume", ...(await this.resume(location))] as const);
    if (!this.jar.has("portcullis_session")) throw new FlowError(step, done.status, "no portcullis_session cookie after the login");
    return codeFrom(step, done, callback, state, DEMO_WEB);
  }

  /**
   * node-oidc-provider (the bench's peer) answers the login form with a redirect back to its
   * authorization endpoint (`<issuer-origin>/connect/authorize/<uid>`), which then redirects to the client:
   * a browser follows it. The provider redirects to the client at once.
   */
  private async resume(location: string): Promise<[HttpResponse, string]> {
    const url = new URL(location, "http://resume.invalid");
    if (!url.pathname.startsWith(`${AUTHORIZE_PATH}/`))
      throw new FlowError("password", 303, `unexpected redirect to ${location.slice(0, 200)}`);
    const res = await this.get("resume", `${url.pathname}${url.search}`);
    return [res, expectRedirect("resume", res)];
  }

  /** The code-flow ceiling's bench-only session for `user` (BENCH_SESSION_PATH): what logIn gives on the provider. */
  async openBenchSession(user: DemoUser): Promise<void> {
    const form = new URLSearchParams({ username: user.username }).toString();
    const res = await this.post("session", BENCH_SESSION_PATH, { "content-type": "application/x-www-form-urlencoded" }, form);
    if (res.status !== 204 || !this.jar.has(BENCH_SESSION_COOKIE)) {
      throw new FlowError(
        "session",
        res.status,
        `expected 204 with a ${BENCH_SESSION_COOKIE} cookie, got ${res.status}: ${res.body.slice(0, 200)}`,
      );
    }
  }

  private async get(step: string, path: string): Promise<HttpResponse> {
    const res = await this.send(step, "GET", path, this.jar.headerFor(path));
    this.jar.store(res.headers["set-cookie"]);
    return res;
  }

  private async post(step: string, path: string, headers: Record<string, string>, body: string): Promise<HttpResponse> {
    const res = await this.send(step, "POST", path, { ...headers, ...this.jar.headerFor(path) }, body);
    this.jar.store(res.headers["set-cookie"]);
    return res;
  }
}

/** The client's back channel: the code for tokens (client_secret_post), as demo-web (or `client`) does it. */
export async function redeemCode(
  send: Send,
  code: string,
  pkce?: { verifier: string },
  client: CodeFlowClient = DEMO_WEB,
): Promise<Tokens> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirectUri,
    ...(pkce ? { code_verifier: pkce.verifier } : {}),
  });
  return tokenRequest(send, "token", withCredentials(form, client), [], client);
}

/**
 * The client's client_id and, if it has one, its secret (client_secret_post) in a token request's form;
 * what its `credentials` make per request is added when the request is sent (tokenRequest).
 */
export function withCredentials(form: URLSearchParams, client: CodeFlowClient): URLSearchParams {
  form.set("client_id", client.clientId);
  if (client.clientSecret !== undefined) form.set("client_secret", client.clientSecret);
  return form;
}

/**
 * POSTs a token request as `step`: the tokens of a 200 JSON answer with an id_token, an access_token and
 * every one of `members`; a FlowError for anything else.
 */
export async function tokenRequest(
  send: Send,
  step: string,
  form: URLSearchParams,
  members: readonly string[],
  client?: CodeFlowClient,
): Promise<Tokens> {
  // Made right before sending, once per request: a DPoP proof's iat is now and its jti new.
  const fresh = client?.credentials?.() ?? { headers: {}, form: {} };
  for (const [name, value] of Object.entries(fresh.form)) form.set(name, value);
  const headers = { "content-type": "application/x-www-form-urlencoded", ...fresh.headers };
  const res = await send(step, "POST", TOKEN_PATH, headers, form.toString());
  if (res.status !== 200) throw new FlowError(step, res.status, `expected 200, got ${res.status}: ${res.body.slice(0, 200)}`);
  let tokens: Partial<Tokens>;
  try {
    tokens = JSON.parse(res.body) as Partial<Tokens>;
  } catch {
    throw new FlowError(step, res.status, `the response is not JSON: ${res.body.slice(0, 200)}`);
  }
  for (const member of ["id_token", "access_token", ...members]) {
    if (typeof tokens[member] !== "string")
      throw new FlowError(step, res.status, `expected ${member} in the response: ${res.body.slice(0, 200)}`);
  }
  return tokens as Tokens;
}

/**
 * One code flow of a browser that has an SSO session (authorize → code → token), as the code_flow_sso
 * load repeats it; `label` makes its state and nonce unique. The refresh loads ask for `scope` with
 * offline_access once per virtual user, for their refresh token, as the client whose grants they load.
 */
export async function ssoCodeFlow(
  browser: Browser,
  send: Send,
  label: string,
  pkce: { verifier: string; challenge: string },
  scope: string = DEMO_WEB.scope,
  client: CodeFlowClient = DEMO_WEB,
): Promise<Tokens> {
  const answer = await browser.authorize({ client, scope, state: `s${label}`, nonce: `n${label}`, pkce });
  if (!("code" in answer)) throw new FlowError("authorize", 303, "the SSO session was not honoured: sent to the login page");
  return redeemCode(send, answer.code, pkce, client);
}

/**
 * A whole login flow in a fresh browser (authorize → login page → password → token): the tokens, and
 * the browser, which now has an SSO session.
 */
export async function logInAndRedeem(send: Send, user: DemoUser, scope: string): Promise<{ browser: Browser; tokens: Tokens }> {
  const browser = new Browser(send);
  const flow: FlowRequest = {
    scope,
    state: randomBytes(8).toString("base64url"),
    nonce: randomBytes(8).toString("base64url"),
    pkce: pkcePair(),
  };
  const first = await browser.authorize(flow);
  if (!("loginPage" in first)) throw new FlowError("authorize", 303, "a fresh browser got a code without logging in");
  const code = await browser.logIn(first.loginPage, user, flow.state);
  return { browser, tokens: await redeemCode(send, code, flow.pkce) };
}

/**
 * The cookies of a browser with an SSO session for `user`: through the provider's login page (one whole
 * login flow), or from the code-flow ceiling's bench-only endpoint.
 */
export async function ssoSession(send: Send, user: DemoUser, from: SessionSource, scope: string): Promise<CookieJar> {
  if (from === "login-page") return (await logInAndRedeem(send, user, scope)).browser.jar;
  const browser = new Browser(send);
  await browser.openBenchSession(user);
  return browser.jar;
}

function expectRedirect(step: string, res: HttpResponse): string {
  const location = res.headers.location;
  if (res.status !== 303 || !location)
    throw new FlowError(step, res.status, `expected a 303 redirect, got ${res.status}: ${res.body.slice(0, 200)}`);
  return location;
}

/** The code from a redirect to the client's callback; the error, if the provider sent one instead. */
function codeFrom(step: string, res: HttpResponse, location: string, state: string, client: CodeFlowClient): string {
  if (!location.startsWith(`${client.redirectUri}?`))
    throw new FlowError(step, res.status, `unexpected redirect to ${location.slice(0, 200)}`);
  const params = new URLSearchParams(location.slice(location.indexOf("?") + 1));
  const code = params.get("code");
  if (!code) throw new FlowError(step, res.status, `no code in the redirect: ${location.slice(0, 300)}`);
  if (params.get("state") !== state) throw new FlowError(step, res.status, "the redirect's state is not the request's");
  return code;
}
