import type { ServerResponse } from "node:http";
import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import { invalidRequest, type OAuthError, oauthError } from "../../errors/oauth-error.ts";
import { parseScope } from "../../scopes/scope.ts";
import { invalidToken } from "../../tokens/jose-errors.ts";
import { SECURITY_HEADERS } from "../../http-kit/security-headers.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { paths } from "../../http-kit/paths.ts";
import { collectParams } from "../../http-kit/params.ts";
import { readBody } from "../../http-kit/read-body.ts";
import { toOAuthError, wireDescription } from "../../http-kit/write-error.ts";
import { requestIdOf } from "../../http-kit/write-response.ts";
import { perSnapshot } from "../../snapshot/per-snapshot.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import type { Employee } from "../../users/user-directory.ts";
import { type AccessTokenClaims, USERINFO_CLAIMS } from "../../tokens/access-token.ts";
import { type BirthdateFormat, withBirthdateFormat } from "../../scopes/birthdate-format.ts";
import { allowedClaims } from "../../oauth/requested-claim-names.ts";
import { checkSenderConstraint, parseAuthorization, type PresentedToken } from "../../oauth/dpop/resource-access.ts";

const REALM = 'Bearer realm="portcullis"';
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;

// Header lists built once (see write-response.ts): every answer is private and readable by any origin,
// because single-page apps call userinfo with a bearer token (no cookies, so `*` is safe).
const SECURITY = Object.entries(SECURITY_HEADERS).flat();
const CORS = ["Access-Control-Allow-Origin", "*", "Access-Control-Expose-Headers", "WWW-Authenticate, DPoP-Nonce"];
const NO_STORE = ["Cache-Control", "no-store", "Pragma", "no-cache"];
const OK_HEADERS = ["Content-Type", "application/json; charset=utf-8", ...NO_STORE, ...CORS, ...SECURITY];
const CHALLENGE_HEADERS = ["WWW-Authenticate", REALM, ...NO_STORE, ...CORS, ...SECURITY, "Content-Length", "0"];
const PREFLIGHT_HEADERS = [
  "Access-Control-Allow-Origin",
  "*",
  "Access-Control-Allow-Methods",
  "GET, POST",
  "Access-Control-Allow-Headers",
  "Authorization, Content-Type, DPoP",
  "Access-Control-Max-Age",
  "86400",
  ...SECURITY,
];
const CORS_OBJECT: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "WWW-Authenticate, DPoP-Nonce",
};

/** What a granted scope string releases, computed once per distinct scope string. */
interface ReleasePlan {
  readonly openid: boolean;
  readonly claims: ReadonlySet<string>;
  /** The client's clients.yaml birthdate_format. */
  readonly format: BirthdateFormat;
  /**
   * The answer body per user, by employee record: a directory hands out a new record when it reads the person again (an LDAP
   * directory after its cache_ttl), so a changed title shows, and a record nobody holds takes its body with it.
   */
  readonly bodies: WeakMap<Employee, string>;
}
const MAX_CACHED_PLANS = 1024;

/**
 * GET|POST /connect/userinfo (OIDC Core §5.3, RFC 6750, RFC 9449 §7). The token comes from `Authorization: Bearer`,
 * or on POST from an `access_token` form field, never both and never from the query; a DPoP-bound token
 * only from `Authorization: DPoP` with a proof by its key (resource-access.ts). It must be an
 * access token of ours (signed with the alg its key is published with, typ at+jwt, live, not revoked) whose audience is this endpoint and whose
 * scope has `openid`; the answer is `sub` plus what its identity scopes release (scopes.yaml).
 *
 * A hot path: no step table, header lists built once, the claim set per scope string cached.
 * Errors (RFC 6750 §3.1): no token → 401 with a bare challenge and no error; a bad, expired or revoked
 * token, one for another audience (client_credentials, ID tokens) or of a user who no longer exists (an
 * eID account: whose record is gone or whose upstream is no longer declared; a vendor account whose
 * client may no longer make vendor logins) →
 * 401 invalid_token; a token for this endpoint without `openid` → 403 insufficient_scope.
 */
export function userinfoEndpoint(infra: Infra): ProtocolRoute {
  const { accessTokenVerifier: verifier, logger } = infra;
  const eidAccounts = infra.eid.accounts;
  const audience = infra.accessTokens.userinfoAudience;
  // What a DPoP proof's htu names here: the issuer's userinfo URL, whatever Host a proxy passed on.
  const userinfoUrl = infra.issuer + paths.userinfo;
  const limits = { maxParameterLength: infra.settings.security.max_parameter_length };
  const maxBodyBytes = infra.settings.security.max_body_bytes;
  // The release plans and answers are derived from scopes.yaml and users.yaml: kept per policy snapshot, so a reload starts afresh.
  const plansOf = perSnapshot(() => new Map<string, ReleasePlan>());

  /**
   * What a token releases: its scopes' claims, and those its claims request added (USERINFO_CLAIMS) that the
   * client's allowed scopes release today, with birthdate in the client's format. Keyed by all three.
   */
  function planFor(policy: PolicySnapshot, token: AccessTokenClaims): ReleasePlan {
    const plans = plansOf(policy);
    const client = policy.clients.get(token.client_id);
    const format: BirthdateFormat = client?.config.birthdate_format ?? "spec";
    const requested = requestedNames(token[USERINFO_CLAIMS]);
    const key =
      requested === undefined ? `${format} ${token.scope}` : `${format} ${token.scope}\n${token.client_id}\n${requested.join(" ")}`;
    let plan = plans.get(key);
    if (plan === undefined) {
      const granted = parseScope(token.scope);
      const claims = policy.scopes.claimsFor(granted);
      if (requested !== undefined && client !== undefined) {
        const allowed = allowedClaims(client, policy.scopes);
        for (const name of requested) if (allowed.has(name)) claims.add(name);
      }
      plan = { openid: granted.includes("openid"), claims, format, bodies: new WeakMap() };
      if (plans.size < MAX_CACHED_PLANS) plans.set(key, plan);
    }
    return plan;
  }

  async function answer(ex: Exchange, presented: PresentedToken | undefined): Promise<void> {
    if (presented === undefined) return writeChallenge(ex.res);
    const claims = await verifier.verify(presented.token);
    const { req } = ex;
    await checkSenderConstraint(infra.dpop, claims, presented, {
      dpopHeaders: req.headersDistinct.dpop,
      method: req.method ?? "",
      url: userinfoUrl,
    });
    // The audience says the token was issued for userinfo: client_credentials tokens (API audiences
    // only) and tokens of other kinds are not this endpoint's business.
    const aud = claims.aud;
    if (aud !== audience && !(Array.isArray(aud) && aud.includes(audience)))
      throw invalidToken("the token is not meant for the userinfo endpoint");
    const { policy } = takeScope(infra);
    const { users } = policy;
    const plan = planFor(policy, claims);
    if (!plan.openid) throw insufficientScope();
    const user = await users.findBySub(claims.sub);
    // An eID account: the claims its upstream gave at the last login, read each time (the next login may change them).
    if (user === undefined && eidAccounts.owns(claims.sub))
      return writeClaims(
        ex.res,
        infra.dpop.nonce(),
        JSON.stringify(withBirthdateFormat(await eidClaims(claims.sub, plan.claims), plan.format)),
      );
    // A vendor account: its sub and the account part of it as name, while its client may make vendor logins.
    const vendor = user === undefined ? policy.vendorAccounts.userinfo(claims.sub, plan.claims) : undefined;
    if (vendor !== undefined) return writeClaims(ex.res, infra.dpop.nonce(), JSON.stringify(vendor));
    if (user === undefined || user.disabled) throw invalidToken("the token's user is no longer known");
    let body = plan.bodies.get(user);
    if (body === undefined) {
      body = JSON.stringify(withBirthdateFormat(users.claims(user, plan.claims), plan.format));
      plan.bodies.set(user, body);
    }
    writeClaims(ex.res, infra.dpop.nonce(), body);
  }

  async function eidClaims(sub: string, names: ReadonlySet<string>): Promise<Record<string, unknown>> {
    const released = await eidAccounts.userinfo(sub, names);
    if (released === undefined) throw invalidToken("the token's user is no longer known");
    return released;
  }

  async function answerPost(ex: Exchange): Promise<void> {
    const fromHeader = parseAuthorization(ex.req.headers.authorization);
    // RFC 6750 §2.2: the body method needs a form body; a JSON body (the spec's clients send that
    // Content-Type with the header method) is not read.
    if (!FORM_TYPE.test(ex.req.headers["content-type"] ?? "")) return answer(ex, fromHeader);
    const body = await readBody(ex.req, maxBodyBytes);
    const fromBody = collectParams(new URLSearchParams(body.toString("utf8")), limits).get("access_token");
    if (fromHeader !== undefined && fromBody !== undefined) throw invalidRequest("present the access token in one place only");
    return answer(ex, fromHeader ?? (fromBody === undefined ? undefined : { scheme: "Bearer", token: fromBody }));
  }

  function fail(ex: Exchange, err: unknown): void {
    const oauth = toOAuthError(err, logger, ex);
    if (ex.res.headersSent) {
      ex.res.end();
      return;
    }
    const description = wireDescription(oauth.description);
    const headers: Record<string, string> = { ...oauth.headers, ...CORS_OBJECT };
    // Every refusal of a bearer request carries a challenge (RFC 6750 §3), the 400s included.
    if (headers["WWW-Authenticate"] === undefined && oauth.status < 500) {
      headers["WWW-Authenticate"] = `${REALM}, error="${oauth.error}", error_description="${description}"`;
    }
    if (oauth.status === 503) headers["Retry-After"] = "5";
    const text = JSON.stringify({ error: oauth.error, error_description: description });
    const list = NO_STORE.concat(
      "Content-Type",
      "application/json; charset=utf-8",
      "X-Request-Id",
      requestIdOf(ex.res),
      "Content-Length",
      String(Buffer.byteLength(text)),
      ...SECURITY,
    );
    for (const name in headers) list.push(name, headers[name]!);
    ex.res.writeHead(oauth.status, list);
    ex.res.end(text);
  }

  return {
    path: paths.userinfo,
    methods: ["GET", "POST", "OPTIONS"],
    // Only a POST with a form body is read, by answerPost itself.
    readsBody: false,
    handle(ex) {
      const method = ex.req.method;
      if (method === "OPTIONS") return writePreflight(ex.res);
      const pending = method === "POST" ? answerPost(ex) : answer(ex, parseAuthorization(ex.req.headers.authorization));
      return pending.catch((err: unknown) => fail(ex, err));
    },
  };
}

/** The claim names a token's USERINFO_CLAIMS lists (a token of ours wrote it; anything else in it is ignored). */
function requestedNames(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const names = value.filter((name): name is string => typeof name === "string");
  return names.length === 0 ? undefined : names;
}

function insufficientScope(): OAuthError {
  const description = "the token lacks the openid scope";
  return oauthError("insufficient_scope", description, {
    headers: { "WWW-Authenticate": `${REALM}, error="insufficient_scope", error_description="${description}", scope="openid"` },
  });
}

/** The claims; with `nonce` (DPoP nonces required, RFC 9449 §9) the next proof's nonce as well. */
function writeClaims(res: ServerResponse, nonce: string | undefined, text: string): void {
  const headers = OK_HEADERS.concat("X-Request-Id", requestIdOf(res), "Content-Length", String(Buffer.byteLength(text)));
  if (nonce !== undefined) headers.push("DPoP-Nonce", nonce);
  res.writeHead(200, headers);
  res.end(text);
}

/** RFC 6750 §3.1: a request without any token gets the challenge and no error information. */
function writeChallenge(res: ServerResponse): void {
  res.writeHead(401, CHALLENGE_HEADERS.concat("X-Request-Id", requestIdOf(res)));
  res.end();
}

function writePreflight(res: ServerResponse): void {
  res.writeHead(204, PREFLIGHT_HEADERS.concat("X-Request-Id", requestIdOf(res)));
  res.end();
}
