/**
 * The product rule "clear errors for bad input — never a stack trace, never a 500 for a client
 * mistake", attacked at every route of a running provider (embedded store, demo config) over real
 * HTTP on loopback: fast-check sends each route hostile requests (test/support/hostile-input.ts) and
 * every answer must pass test/support/safe-answer.ts, with no error logged while it was made.
 *
 * The routes are read from the running app (test/support/route-catalog.ts), so a route mounted
 * tomorrow is attacked tomorrow; it must only be given an answer kind below, or the coverage test
 * fails. A failing property prints its seed; `HOSTILE_SEED=<seed> npx vitest run <this file> -t
 * '<route>'` replays it, and HOSTILE_RUNS=<n> changes the number of requests per route (200).
 */
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { paths } from "../../src/http-kit/paths.ts";
import { DEVICE_API_PATH } from "../../src/trusted-app/acmeauth-uri.ts";
import { customLoginPaths } from "../../src/extensions/custom-login/custom-login-services.ts";
import { CUSTOM_LOGIN_MANIFEST } from "../../src/extensions/custom-login/manifest.ts";
import { hostileRequest, type HostileRequest } from "../support/hostile-input.ts";
import { LiveSamples } from "../support/live-samples.ts";
import { closeRawConnections, sendRaw } from "../support/raw-http.ts";
import { mountedRoutes } from "../support/route-catalog.ts";
import { answerProblems, type AnswerKind } from "../support/safe-answer.ts";
import { startTestProvider } from "../support/test-provider.ts";

vi.mock("../../src/http/protocol-router.ts", async (importOriginal) =>
  (await import("../support/route-catalog.ts")).recordingProtocolRouter(await importOriginal()),
);

const RUNS_PER_ROUTE = Number(process.env.HOSTILE_RUNS ?? 200);
const SEED = process.env.HOSTILE_SEED === undefined ? undefined : Number(process.env.HOSTILE_SEED);
const ANSWER_TIMEOUT_MS = 10_000;

/** Routes a person's browser opens or posts to: their errors are pages. */
const PAGES = new Set<string>([
  paths.authorize,
  paths.accountLogin,
  paths.iframeAuthorize,
  paths.eidAuthorize,
  paths.eidCallback,
  paths.endSession,
  paths.endSessionConfirm,
  `${paths.interaction}/:id`,
  paths.account,
  `${paths.account}/sign-in`,
  `${paths.account}/enroll`,
  `${paths.account}/remove`,
  paths.diagrams,
  `${paths.diagrams}/:name`,
  `${paths.diagrams}/machine/:hash`,
]);
/** Protocol endpoints called by programs: their errors are RFC 6749 §5.2 JSON. */
const PROGRAMS = new Set<string>([
  paths.discovery,
  paths.jwks,
  paths.token,
  paths.pushedAuthorizationRequest,
  paths.introspection,
  paths.revocation,
  paths.userinfo,
  paths.healthz,
  paths.readyz,
]);

/** The custom QR-code login's routes (docs/custom-login.md): a script, the page script's JSON, the mobile backend's JSON, the PC login form. */
const CUSTOM_LOGIN = customLoginPaths(CUSTOM_LOGIN_MANIFEST.routePrefix);
const CUSTOM_LOGIN_KINDS = new Map<string, AnswerKind>([
  [CUSTOM_LOGIN.loginJs, "script"],
  [CUSTOM_LOGIN.status, "json"],
  [CUSTOM_LOGIN.renew, "json"],
  [CUSTOM_LOGIN.writeStatus, "status-json"],
  [CUSTOM_LOGIN.authorize, "page"],
]);

function answerKind(path: string): AnswerKind | undefined {
  if (PAGES.has(path)) return "page";
  if (CUSTOM_LOGIN_KINDS.has(path)) return CUSTOM_LOGIN_KINDS.get(path);
  if (PROGRAMS.has(path)) return "json";
  // Factor plugins' routes (called by their page scripts), the trusted app's device API and the admin API are
  // JSON APIs; plugins come and go with the configuration, so they are known by where they are mounted.
  if ([paths.methods, DEVICE_API_PATH, paths.admin].some((prefix) => path.startsWith(`${prefix}/`))) return "json";
  return undefined;
}

// What a browser puts on a navigation or a form post: an Accept that names HTML, a form's encoding,
// and never a Content-Encoding.
const BROWSER_ACCEPT = /^text\/html(?:,|$)/;
const BROWSER_FORM_TYPE = /^(?:application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\b/i;

/** Whether a browser could have sent `req` to a route serving `methods`. */
function fromBrowser(req: HostileRequest, methods: readonly string[]): boolean {
  const method = methods.includes(req.method) && ["GET", "HEAD", "POST"].includes(req.method);
  const body = req.method === "POST" ? BROWSER_FORM_TYPE.test(req.headers["content-type"] ?? "") : req.body === undefined;
  return method && body && BROWSER_ACCEPT.test(req.headers.accept ?? "") && req.headers["content-encoding"] === undefined;
}

/**
 * The kind of answer a request must get. A page route owes a page to what a browser can send it; a
 * request only a program makes (PUT, a compressed body, a body on a GET, no Accept) may get the JSON
 * error of whatever refused it first. A JSON API owes JSON to a caller that does not ask for HTML (the
 * pages app answers by Accept). A path with something after the route's own is another path, whose
 * kind is unknown.
 */
function expectedKind(route: { path: string; methods: readonly string[] }, req: HostileRequest): AnswerKind | undefined {
  const kind = answerKind(route.path);
  if (!req.exactPath || kind === undefined) return undefined;
  if (kind === "page") return fromBrowser(req, route.methods) ? "page" : undefined;
  // A script tag's and WriteStatusOperation's answers do not depend on Accept.
  if (kind !== "json") return kind;
  return PROGRAMS.has(route.path) || !/html/.test(req.headers.accept ?? "") ? kind : undefined;
}

/**
 * Paths served without an Express route or a protocol route, which the catalog cannot see: the static
 * assets (a middleware looks names up in a table) and the catch-all 404s of the app, of the device
 * API's router and under a plugin's mount point (those two answer like the JSON APIs they end).
 */
const UNROUTED = [
  { path: `${paths.assets}/portcullis.css`, methods: ["GET", "HEAD"] },
  { path: `${paths.assets}/:name`, methods: ["GET", "HEAD"] },
  { path: "/:anything", methods: ["GET", "POST"] },
  { path: `${DEVICE_API_PATH}/:anything`, methods: ["POST"] },
  { path: `${paths.admin}/:anything`, methods: ["GET", "POST"] },
  { path: `${paths.methods}/:id/:anything`, methods: ["GET", "POST"] },
];

const p = await startTestProvider({
  edits: {
    "provider.yaml": {
      // Thousands of hostile logins from one address: the per-address budget would turn most into 429s.
      "security.login_requests_per_ip.max": 1_000_000,
      // Wrong passwords for the demo users, thousands of them: the samples sign in again after a logout.
      "security.password_attempts.max_failures": 1_000_000,
      // One line per request would make the captured log, searched after every answer, grow by thousands.
      "logging.requests": false,
    },
  },
});
afterAll(async () => {
  closeRawConnections();
  await p.close();
});
const live = new LiveSamples(p);

/** The mounted routes, one entry per path with all its methods. */
const routes = [...new Set(mountedRoutes().map((r) => r.path))].map((path) => ({
  path,
  methods: [...new Set(mountedRoutes().flatMap((r) => (r.path === path ? r.methods : [])))],
}));

/** Errors (level ≥ 50) the provider logged since the last call: an unhandled error is logged even when the answer looks fine. */
let logRead = 0;
function newErrorLogLines(): string[] {
  const text = p.logText();
  const fresh = text.slice(logRead);
  logRead = text.length;
  return fresh.split("\n").filter((line) => /"level":(?:50|60)/.test(line));
}

/** A short, readable form of a request for fast-check's counterexample report. */
function describeRequest(req: HostileRequest): string {
  const headers = Object.entries(req.headers).map(([name, value]) => `${name}: ${JSON.stringify(value.slice(0, 120))}`);
  const body = req.body ? `${req.body.length} bytes: ${JSON.stringify(req.body.subarray(0, 200).toString("latin1"))}` : "none";
  return `${req.method} ${JSON.stringify(req.target.slice(0, 400))}${req.target.length > 400 ? ` (${req.target.length} chars)` : ""}\n  ${headers.join("\n  ")}\n  body: ${body}`;
}

async function attack(path: string, methods: readonly string[]): Promise<void> {
  const requests = hostileRequest({ path, methods }, await live.current()).map((req) =>
    Object.assign(req, { [fc.toStringMethod]: () => describeRequest(req) }),
  );
  newErrorLogLines();
  await fc.assert(
    fc.asyncProperty(requests, async (req) => {
      const answer = await sendRaw(p.url, req, ANSWER_TIMEOUT_MS);
      const problems = answerProblems(answer, expectedKind({ path, methods }, req));
      problems.push(...newErrorLogLines().map((line) => `logged an error: ${line.slice(0, 300)}`));
      expect(problems).toEqual([]);
    }),
    { numRuns: RUNS_PER_ROUTE, seed: SEED },
  );
}

describe("the suite attacks every route the app serves", () => {
  it("reads the routes from the running app", () => {
    const found = routes.map((r) => r.path);
    for (const path of [
      paths.token,
      paths.authorize,
      `${paths.interaction}/:id`,
      paths.account,
      `${DEVICE_API_PATH}/enroll`,
      `${paths.methods}/totp/enrollment-secret`,
      `${paths.admin}/users/:user/sessions`,
      `${paths.admin}/users/:user/sign-out`,
    ]) {
      expect(found).toContain(path);
    }
  });

  it("knows which kind of answer every mounted route gives (a new route needs an entry here)", () => {
    expect(routes.map((r) => r.path).filter((path) => answerKind(path) === undefined)).toEqual([]);
  });
});

describe("hostile requests get a clear error: no 5xx, no stack trace, the route's error format", () => {
  it.each(routes.map((r) => [r.path, r.methods] as const))("%s", (path, methods) => attack(path, methods), 120_000);
  it.each(UNROUTED.map((r) => [r.path, r.methods] as const))(
    "%s (not a route: middleware or a catch-all)",
    (path, methods) => attack(path, methods),
    120_000,
  );
});

const FORM = "application/x-www-form-urlencoded";
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const unsignedJwt =
  ['{"alg":"none","typ":"at+jwt"}', '{"sub":"E10001","scope":"openid"}'].map((part) => Buffer.from(part).toString("base64url")).join(".") +
  ".";
const overLimit = () => Buffer.alloc(p.provider.settings.security.max_body_bytes + 1, "a");

interface WorstCase {
  name: string;
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: () => Buffer;
  status: number;
  kind: AnswerKind | undefined;
}

/** The worst inputs, one per line, for each kind of route; each answer is checked like the generated ones, and its status too. */
const WORST: WorstCase[] = [
  {
    name: "a token request over max_body_bytes",
    method: "POST",
    target: paths.token,
    headers: { "content-type": FORM },
    body: overLimit,
    status: 413,
    kind: "json",
  },
  {
    name: "an introspection request in an unsupported Content-Encoding",
    method: "POST",
    target: paths.introspection,
    headers: { "content-type": FORM, "content-encoding": "br" },
    body: () => Buffer.from("token=x"),
    status: 415,
    kind: "json",
  },
  {
    name: "a gzip bomb at revocation",
    method: "POST",
    target: paths.revocation,
    headers: { "content-type": FORM, "content-encoding": "gzip" },
    body: () => gzipSync(Buffer.alloc(10_000_000)),
    status: 413,
    kind: "json",
  },
  {
    name: "an alg:none token at userinfo",
    method: "GET",
    target: paths.userinfo,
    headers: { authorization: `Bearer ${unsignedJwt}` },
    status: 401,
    kind: "json",
  },
  {
    name: "an authorize form over max_body_bytes",
    method: "POST",
    target: paths.authorize,
    headers: { "content-type": FORM, accept: BROWSER },
    body: overLimit,
    status: 413,
    kind: "page",
  },
  {
    name: "an authorize form in an unsupported Content-Encoding",
    method: "POST",
    target: paths.authorize,
    headers: { "content-type": FORM, accept: BROWSER, "content-encoding": "br" },
    body: () => Buffer.from("client_id=demo-web"),
    status: 415,
    kind: "page",
  },
  {
    name: "an end-session form over max_body_bytes",
    method: "POST",
    target: paths.endSession,
    headers: { "content-type": FORM, accept: BROWSER },
    body: overLimit,
    status: 413,
    kind: "page",
  },
  {
    name: "an end-session form in an unsupported Content-Encoding",
    method: "POST",
    target: paths.endSession,
    headers: { "content-type": FORM, accept: BROWSER, "content-encoding": "br" },
    body: () => Buffer.from("client_id=demo-web"),
    status: 415,
    kind: "page",
  },
  {
    name: "a login form over max_body_bytes",
    method: "POST",
    target: `${paths.interaction}/made-up`,
    headers: { "content-type": FORM, accept: BROWSER },
    body: overLimit,
    status: 413,
    kind: "page",
  },
  {
    name: "a login page whose id is not percent-encoded UTF-8",
    method: "GET",
    target: `${paths.interaction}/%zz%C3%28`,
    headers: { accept: BROWSER },
    status: 400,
    kind: "page",
  },
  {
    name: "an account form with more fields than it reads",
    method: "POST",
    target: `${paths.account}/enroll`,
    headers: { "content-type": FORM, accept: BROWSER },
    body: () => Buffer.from(Array.from({ length: 50 }, (_, i) => `f${i}=1`).join("&")),
    status: 400,
    kind: "page",
  },
  {
    name: "a diagram name of invalid UTF-8",
    method: "GET",
    target: `${paths.diagrams}/%FF%FE`,
    headers: { accept: BROWSER },
    status: 400,
    kind: "page",
  },
  {
    name: "a device enrollment of JSON nested 5000 deep",
    method: "POST",
    target: `${DEVICE_API_PATH}/enroll`,
    headers: { "content-type": "application/json" },
    body: () => Buffer.from("[".repeat(5000) + "]".repeat(5000)),
    status: 400,
    kind: "json",
  },
  {
    name: "a device scan of truncated JSON",
    method: "POST",
    target: `${DEVICE_API_PATH}/scan`,
    headers: { "content-type": "application/json" },
    body: () => Buffer.from('{"jws":'),
    status: 400,
    kind: "json",
  },
  {
    name: "a TOTP secret request over the route's 1 KB",
    method: "POST",
    target: `${paths.methods}/totp/enrollment-secret`,
    headers: { "content-type": "application/json" },
    body: () => Buffer.from(JSON.stringify({ handle: "x".repeat(2000) })),
    status: 413,
    kind: "json",
  },
  // A made-up challenge can never change: its long-poll answers at once instead of holding the connection.
  {
    name: "a long-poll of a made-up QR challenge",
    method: "GET",
    target: `${paths.methods}/qrcode/challenges/${"A".repeat(32)}?seen=pending`,
    status: 200,
    kind: "json",
  },
  {
    name: "a status write over max_body_bytes",
    method: "POST",
    target: CUSTOM_LOGIN.writeStatus,
    headers: { "content-type": "application/json" },
    body: overLimit,
    status: 413,
    kind: "status-json",
  },
  {
    name: "a status write with an alg:none token and JSON nested 5000 deep",
    method: "POST",
    target: CUSTOM_LOGIN.writeStatus,
    headers: { "content-type": "application/json", authorization: `Bearer ${unsignedJwt}` },
    body: () => Buffer.from("[".repeat(5000) + "]".repeat(5000)),
    status: 401,
    kind: "status-json",
  },
  { name: "a LoginJs load without parameters", method: "GET", target: CUSTOM_LOGIN.loginJs, status: 400, kind: "script" },
  {
    name: "a PC login form over max_body_bytes",
    method: "POST",
    target: CUSTOM_LOGIN.authorize,
    headers: { "content-type": FORM, accept: BROWSER },
    body: overLimit,
    status: 413,
    kind: "page",
  },
  // Refused by node itself, before any of our code: still no 5xx.
  {
    name: "a 20 KB cookie header",
    method: "GET",
    target: paths.authorize,
    headers: { cookie: `portcullis_session=${"x".repeat(20_000)}`, accept: BROWSER },
    status: 431,
    kind: undefined,
  },
];

describe("the worst inputs, one by one", () => {
  it.each(WORST)("answers $name with $status", async (worst) => {
    const body = worst.body?.();
    const headers = { ...worst.headers, ...(body && { "content-length": String(body.length) }) };
    newErrorLogLines();
    const answer = await sendRaw(p.url, { method: worst.method, target: worst.target, headers, body }, 2_000);
    expect(answer.kind === "answer" && answer.status).toBe(worst.status);
    expect([...answerProblems(answer, worst.kind), ...newErrorLogLines()]).toEqual([]);
  });
});
