import type { ProofKind, ProofSpec } from "./client-proofs.ts";

/** What the bench and its load generator workers pass each other: jobs as JSON in argv, results as a JSON line. */

/** One HTTP request, as autocannon sends it over and over. */
export interface LoadRequest {
  path: string;
  method: "GET" | "POST";
  headers?: Record<string, string>;
  /** A form (POST) when `proofs` is given: their form members are added to it per request. */
  body?: string;
  /** What is made fresh for every request sent, as a real client does (a DPoP proof, a client assertion). */
  proofs?: ProofSpec;
}

/** What the bench asks of the autocannon load generator (workers/load-generator.ts). */
export interface LoadJob {
  url: string;
  request: LoadRequest;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** The server process, whose CPU use during the recorded window is reported. */
  serverPid: number;
  /** The core it is pinned to. */
  serverCpu: number;
}

/**
 * The browser journeys of the code-flow load generator (workers/flow-generator.ts):
 * - sso: a browser with an SSO session: authorize (303 with a code) → token (ID token + access token).
 * - login: a fresh browser: authorize → login page → password form → token.
 * - refresh: a client holding a refresh token: token (refresh_token grant: ID token, access token and
 *   the next refresh token).
 */
export type FlowKind = "sso" | "login" | "refresh";

/** What a client's access tokens are (clients.yaml access_token_format): RS256 JWTs, or reference handles. */
export type AccessTokenFormat = "jwt" | "reference";

/**
 * How an sso virtual user gets its session before the load: the provider's login page, or the code-flow
 * ceiling's bench-only endpoint (code-flow.ts, BENCH_SESSION_PATH).
 */
export type SessionSource = "login-page" | "bench-endpoint";

/** What the bench asks of the code-flow load generator. */
export interface FlowJob {
  baseUrl: string;
  flow: FlowKind;
  /** sso and refresh. */
  sessionFrom: SessionSource;
  /** refresh: the access tokens of the client that refreshes (refresh-flow.ts, REFRESHING_CLIENT); jwt when not given. */
  accessTokens?: AccessTokenFormat;
  /**
   * refresh: refresh as the bench's client with a DPoP proof or private_key_jwt on every token request
   * (bench-clients.ts, PROOF_WEB) instead; its proofs name `tokenUrl` (bench-clients.ts, tokenUrlOf).
   */
  proof?: { kind: ProofKind; tokenUrl: string };
  /** Virtual users, each a loop of flows on its own keep-alive connection. */
  users: number;
  warmupSeconds: number;
  durationSeconds: number;
  serverPid: number;
  serverCpu: number;
  /** Length of the timeline's slices (bench/timeline.ts); 10 s when not given. */
  sliceSeconds?: number;
}

/**
 * What the bench asks of the directory load generator (workers/directory-load.ts): virtual users, each
 * looping what a login with a cold cache asks of the LDAP directory, a search for a person as the service
 * account and a bind as that person, on connections of its own.
 */
export interface DirectoryJob {
  /** ldap://127.0.0.1:PORT */
  url: string;
  /** The service account the provider searches as. */
  serviceDn: string;
  servicePassword: string;
  /** Where people are, the filter they match and the attribute a login name is (directory.yaml's users). */
  base: string;
  filter: string;
  loginAttribute: string;
  /** The attributes the provider's search asks for (its claims mapping's). */
  attributes: string[];
  /** Who logs in, in turn, with their passwords. */
  people: Array<{ username: string; password: string }>;
  users: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** slapd: its CPU is the directory's own cost. */
  serverPid: number;
  serverCpu: number;
}

/** One recorded load window, as a worker prints it. */
export interface LoadResult {
  /**
   * What one unit of work is: one request (autocannon), one whole flow (several dependent requests), or
   * one directory check (a search and a bind).
   */
  unit: "request" | "flow" | "check";
  /** Connections (autocannon) or virtual users with one connection each (flows). */
  connections: number;
  /** Length of the recorded window. */
  seconds: number;
  /** 2xx responses (flows: completed flows) in the window. */
  ok: number;
  /** `ok` per second: req/s, or flows/s. */
  reqPerSec: number;
  /** Per 2xx response, or per completed flow (first request sent → last response read). */
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Unexpected responses (autocannon: non-2xx; flows: any status or body a browser would not expect). */
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Non-2xx responses, errors and timeouts during the (unrecorded) warm-up. */
  warmupFailures: number;
  /** Status codes seen in the window (flows: "<step> <status>"). */
  statusCodes: Record<string, number>;
  /**
   * Flows only, for windows of two slices (bench/timeline.ts) or more: each slice's completed flows and
   * the server's CPU time per flow, in order, to show whether the server slows down as the run goes on.
   */
  timeline?: Array<{ seconds: number; units: number; serverCpuUsPerUnit: number }>;
  /** Flows only: latency of each request of the flow, over the flows completed in the window. */
  steps?: Record<string, LoadResult["latencyMs"]>;
  /** Server CPU time / wall time in the window: ~1.0 means its core was saturated. */
  serverCpu: number;
  /** Server CPU time per 2xx response (per flow), in µs: unlike req/s, barely moved by other processes taking the core. */
  serverCpuUsPerRequest: number;
  /** Time the server's main thread waited for its core (other processes or its own helper threads) / wall time. */
  serverWait: number;
  /** Share of the server core used by other processes or stolen by the hypervisor during the window. */
  coreTaken: number;
  /** The load generator's own CPU time / wall time: near 1.0 means it may be the limit, not the server. */
  loadCpu: number;
}

/** A run with any failed response is not a number: it is reported as invalid. */
export function problems(result: LoadResult): string[] {
  const found: string[] = [];
  const unexpected = result.unit === "request" ? "non-2xx" : "unexpected responses";
  if (result.non2xx > 0) found.push(`${result.non2xx} ${unexpected} (${JSON.stringify(result.statusCodes)})`);
  if (result.errors > 0) found.push(`${result.errors} connection errors`);
  if (result.timeouts > 0) found.push(`${result.timeouts} timeouts`);
  if (result.warmupFailures > 0) found.push(`${result.warmupFailures} failures during the warm-up`);
  if (result.ok === 0)
    found.push(result.unit === "flow" ? "no completed flows" : result.unit === "check" ? "no completed checks" : "no successful responses");
  return found;
}
