import { PROOF_SERVICE, proofSpecOf, type BenchClient } from "./bench-clients.ts";
import type { ProofKind } from "./client-proofs.ts";
import { USERINFO_PATH, httpSender, logInAndRedeem, oneConnection } from "./code-flow.ts";
import { DEMO_SERVICE, DEMO_USERS } from "./demo-accounts.ts";
import type { AccessTokenFormat, FlowKind, LoadRequest } from "./load-protocol.ts";

/** What the bench loads the provider with, each scenario with the floor it is compared with. */

export const SCENARIO_NAMES = [
  "discovery",
  "jwks",
  "client_credentials",
  "client_credentials_dpop",
  "client_credentials_pkjwt",
  "userinfo",
  "code_flow_sso",
  "refresh",
  "refresh_reference",
  "refresh_dpop",
  "refresh_pkjwt",
  "code_flow_login",
  "directory",
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/**
 * bare_http: a minimal node:http server on the same core; rs256: RSA-2048 signatures per second on that
 * core; scrypt: password verifications per second on that core (the demo users' scrypt parameters);
 * es256: P-256 signature verifications per second on that core, no scenario's ratio floor but the cost
 * DPoP's extra CPU per request is compared with (a `proof` scenario's `costFloor`).
 */
export type FloorName = "bare_http" | "rs256" | "scrypt" | "es256";

interface ScenarioBase {
  name: ScenarioName;
  /** How reports name it. */
  label: string;
  floor: FloorName;
  /**
   * Floor operations one unit of this scenario needs at least (a code flow signs two tokens): the
   * ratio is to the floor divided by this.
   */
  floorOps: number;
  /**
   * When this scenario and that one are both measured, their rounds alternate (one of each in turn,
   * round-plan.ts), so the two see the same stretches of the machine and compare with each other.
   */
  alternatesWith?: ScenarioName;
  /**
   * The DPoP and private_key_jwt scenarios (issue 28 §8): which of the two the client adds to every token
   * request, and its twin, the same scenario with a shared secret and a bearer token, which it alternates
   * with round by round and is reported ÷ (targets.ts, proofCostSection).
   */
  proof?: { kind: ProofKind; twin: ScenarioName };
  /**
   * The minimal reference server (bench/workers/) that does this scenario's protocol work and nothing
   * else, measured in the same rounds: what a near-perfect Node implementation reaches. Portcullis ÷ it is
   * reported for every scenario with one; only some are targets (targets.ts).
   */
  ceiling?: Ceiling;
  /** What node-oidc-provider (the peer, --peer) does differently in this scenario, printed with its comparison. */
  peerDifference?: string;
  /**
   * When given, the scenario is also measured on the provider whose employees are in an LDAP directory
   * (--ldap, the default; bench/bench-directory.ts), in the same rounds as the provider on users.yaml:
   * what that provider does differently, printed with the quotient of the two.
   */
  ldapDifference?: string;
}

export interface Ceiling {
  /** How reports name its row. */
  label: string;
  /** Its script in bench/workers/. */
  worker: string;
}

/** One request, repeated by autocannon over many connections. */
export interface RequestScenario extends ScenarioBase {
  kind: "request";
  /** Which connection count option applies: cheap responses get many, signing endpoints a few. */
  connections: "cheap" | "token";
  /**
   * The request to repeat; may take a setup against the server (userinfo: an access token). `tokenUrl`: its
   * token endpoint as it checks a DPoP proof's htu (bench-clients.ts, tokenUrlOf).
   */
  prepare(baseUrl: string, tokenUrl: string): Promise<LoadRequest>;
  /** Checks one response before the load starts, so a misconfiguration fails loudly instead of as N errors. */
  preflight(status: number, body: string): string | undefined;
}

/** Whole browser flows of dependent requests, looped by virtual users (workers/flow-generator.ts). */
export interface FlowScenario extends ScenarioBase {
  kind: "flow";
  flow: FlowKind;
  /** Which virtual-user count option applies. */
  users: "flow" | "login";
  /** refresh: which client refreshes, by its access tokens (refresh-flow.ts, REFRESHING_CLIENT); jwt when not given. */
  accessTokens?: AccessTokenFormat;
}

/**
 * The directory's own cost (--ldap): what a login with a cold cache asks of the LDAP directory, a search
 * for the person as the service account and a bind as them, looped by virtual users straight against the
 * bench's slapd (workers/directory-load.ts). The server measured is slapd itself.
 */
export interface DirectoryScenario extends ScenarioBase {
  kind: "directory";
  /** Virtual users: as many as the login scenario's, whose password checks these are. */
  users: "login";
}

export type Scenario = RequestScenario | FlowScenario | DirectoryScenario;

/** What a back-end service sends: its credentials (client_secret_post) and the scopes it wants. */
export const DEMO_CLIENT_CREDENTIALS = new URLSearchParams({
  grant_type: "client_credentials",
  client_id: DEMO_SERVICE.clientId,
  client_secret: DEMO_SERVICE.clientSecret,
  scope: DEMO_SERVICE.allowedScopes.join(" "),
}).toString();
/** The userinfo scenario's token: what a web app that asks for profile and e-mail holds. */
const USERINFO_SCOPE = "openid profile email";

const fixed = (request: LoadRequest) => () => Promise.resolve(request);

/** client_credentials as a bench client (bench-clients.ts): demo-service's form, and its proofs made per request. */
function serviceRequest(client: BenchClient, tokenUrl: string): LoadRequest {
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: client.clientId, scope: client.allowedScopes.join(" ") });
  if (client.clientSecret !== undefined) form.set("client_secret", client.clientSecret);
  return {
    path: "/connect/token",
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    proofs: proofSpecOf(client, tokenUrl),
  };
}

/** What the peer does differently with DPoP and private_key_jwt: nothing of substance; said so the reader need not wonder. */
const SAME_CHECKS =
  "the same checks (one ES256 verification per proof or assertion, its jti kept against replay); it keeps the jtis in memory, the provider in its store";

/** What the provider on the LDAP directory does differently in the flows that only look the person up. */
const WARM_CACHE =
  "it finds the person by sub in the directory's cache (cache_ttl 60 s, so slapd is asked once a minute per person) where the provider on users.yaml finds them in its list";

/** How reports name a proof kind. */
const PROOF_LABEL: Readonly<Record<ProofKind, string>> = { dpop: "DPoP", private_key_jwt: "private_key_jwt" };

/**
 * client_credentials with a DPoP proof or a client assertion on every request, alternating with its
 * shared-secret, bearer twin (issue 28 §8). A DPoP client's tokens are of type DPoP, an asserting client's Bearer.
 */
function clientCredentialsWithProof(kind: ProofKind): RequestScenario {
  return {
    kind: "request",
    name: kind === "dpop" ? "client_credentials_dpop" : "client_credentials_pkjwt",
    label: `client_credentials (${PROOF_LABEL[kind]})`,
    floor: "rs256",
    floorOps: 1,
    proof: { kind, twin: "client_credentials" },
    alternatesWith: "client_credentials",
    prepare: (_baseUrl, tokenUrl) => Promise.resolve(serviceRequest(PROOF_SERVICE[kind], tokenUrl)),
    connections: "token",
    preflight: (status, body) => expectJson(status, body, "access_token") ?? expectTokenType(body, kind === "dpop" ? "DPoP" : "Bearer"),
    peerDifference: SAME_CHECKS,
  };
}

/**
 * The refresh grant with a proof on every token request, alternating with refresh (JWT): refresh_token
 * grants of a confidential client, whose refresh tokens are not bound to the key (RFC 9449 §5).
 */
function refreshWithProof(kind: ProofKind): FlowScenario {
  return {
    kind: "flow",
    name: kind === "dpop" ? "refresh_dpop" : "refresh_pkjwt",
    label: `refresh (${PROOF_LABEL[kind]})`,
    flow: "refresh",
    accessTokens: "jwt",
    floor: "rs256",
    floorOps: 2,
    users: "flow",
    proof: { kind, twin: "refresh" },
    alternatesWith: "refresh",
    peerDifference: `${SAME_CHECKS}; and as in refresh (JWT), it keeps refresh tokens in memory`,
  };
}

export const SCENARIOS: Readonly<Record<ScenarioName, Scenario>> = {
  discovery: {
    kind: "request",
    name: "discovery",
    label: "discovery",
    floor: "bare_http",
    floorOps: 1,
    prepare: fixed({ path: "/.well-known/openid-configuration", method: "GET" }),
    connections: "cheap",
    preflight: (status, body) => expectJson(status, body, "issuer"),
  },
  jwks: {
    kind: "request",
    name: "jwks",
    label: "jwks",
    floor: "bare_http",
    floorOps: 1,
    prepare: fixed({ path: "/.well-known/openid-configuration/jwks", method: "GET" }),
    connections: "cheap",
    preflight: (status, body) => expectJson(status, body, "keys"),
  },
  client_credentials: {
    kind: "request",
    name: "client_credentials",
    label: "client_credentials",
    floor: "rs256",
    floorOps: 1,
    prepare: fixed({
      path: "/connect/token",
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: DEMO_CLIENT_CREDENTIALS,
    }),
    connections: "token",
    preflight: (status, body) => expectJson(status, body, "access_token"),
    ceiling: { label: "ceiling: minimal node:http token handler", worker: "ceiling-client-credentials.ts" },
  },
  client_credentials_dpop: clientCredentialsWithProof("dpop"),
  client_credentials_pkjwt: clientCredentialsWithProof("private_key_jwt"),
  userinfo: {
    kind: "request",
    name: "userinfo",
    label: "userinfo",
    floor: "bare_http",
    floorOps: 1,
    // One access token, from one code flow through the login page, presented on every request.
    prepare: async (baseUrl) => {
      const agent = oneConnection();
      try {
        const { tokens } = await logInAndRedeem(httpSender(baseUrl, agent), DEMO_USERS[0], USERINFO_SCOPE);
        return { path: USERINFO_PATH, method: "GET", headers: { authorization: `Bearer ${tokens.access_token}` } };
      } finally {
        agent.destroy();
      }
    },
    connections: "cheap",
    preflight: (status, body) => expectJson(status, body, "email"),
    peerDifference:
      "its userinfo takes only its opaque access tokens (it refuses a JWT), so its token is looked up in its in-memory store where the provider verifies an RS256 JWT",
  },
  code_flow_sso: {
    kind: "flow",
    name: "code_flow_sso",
    label: "code flow (SSO)",
    flow: "sso",
    floor: "rs256",
    // An ID token and an access token.
    floorOps: 2,
    users: "flow",
    ceiling: { label: "ceiling: minimal node:http code flow", worker: "ceiling-code-flow.ts" },
    ldapDifference: WARM_CACHE,
  },
  refresh: {
    kind: "flow",
    name: "refresh",
    label: "refresh (JWT)",
    flow: "refresh",
    accessTokens: "jwt",
    floor: "rs256",
    // A refreshed ID token and an access token (the refresh token is opaque, not signed).
    floorOps: 2,
    users: "flow",
    peerDifference:
      "it keeps refresh tokens in memory (its development adapter, lost on restart); the provider writes each rotation to its store's journal (durable)",
    ceiling: { label: "ceiling: minimal node:http refresh", worker: "ceiling-refresh.ts" },
    ldapDifference: WARM_CACHE,
  },
  // The same grant as demo-portal, whose access tokens are reference handles (the peer's: its opaque
  // ones), in rounds alternating with refresh's: the two formats side by side on both servers.
  refresh_reference: {
    kind: "flow",
    name: "refresh_reference",
    label: "refresh (reference)",
    flow: "refresh",
    accessTokens: "reference",
    floor: "rs256",
    // A refreshed ID token; the access token is a reference handle and the refresh token opaque: neither is signed.
    floorOps: 1,
    users: "flow",
    alternatesWith: "refresh",
    peerDifference:
      "it keeps refresh tokens and opaque access tokens in memory (its development adapter, lost on restart); the provider writes each rotation and each reference token's record to its store's journal (both durable)",
  },
  refresh_dpop: refreshWithProof("dpop"),
  refresh_pkjwt: refreshWithProof("private_key_jwt"),
  code_flow_login: {
    kind: "flow",
    name: "code_flow_login",
    label: "code flow (login)",
    flow: "login",
    floor: "scrypt",
    // One password verification (plus two signatures, ~1% of it: not counted).
    floorOps: 1,
    users: "login",
    peerDifference:
      "the same scrypt verification per login; its login form answers with a redirect back to its authorization endpoint, one request more per flow",
    ldapDifference:
      "the password is checked by a bind as the person to slapd (salted SHA-1, on the server core too) instead of a scrypt verification; the person is found by name in the directory's cache, asked again once a minute",
  },
  directory: {
    kind: "directory",
    name: "directory",
    label: "directory: search + bind",
    // What it replaces in a login: the password check, which is one scrypt verification on users.yaml.
    floor: "scrypt",
    floorOps: 1,
    users: "login",
  },
};

/** A token response's token_type (case-insensitive, RFC 6749 §5.1): DPoP for a bound token, Bearer otherwise. */
function expectTokenType(body: string, type: "DPoP" | "Bearer"): string | undefined {
  const tokenType = (JSON.parse(body) as { token_type?: unknown }).token_type;
  return typeof tokenType === "string" && tokenType.toLowerCase() === type.toLowerCase()
    ? undefined
    : `expected token_type ${type}, got ${JSON.stringify(tokenType)}`;
}

function expectJson(status: number, body: string, member: string): string | undefined {
  if (status !== 200) return `expected 200, got ${status}: ${body.slice(0, 200)}`;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return member in parsed ? undefined : `response has no "${member}": ${body.slice(0, 200)}`;
  } catch {
    return `response is not JSON: ${body.slice(0, 200)}`;
  }
}
