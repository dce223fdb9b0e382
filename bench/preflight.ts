import { proofWebClient, tokenUrlOf } from "./bench-clients.ts";
import { BenchError } from "./bench-error.ts";
import { proofMaker } from "./client-proofs.ts";
import { checkPerson, closeConnections, openConnections } from "./directory-check.ts";
import { Browser, httpSender, logInAndRedeem, oneConnection, pkcePair, redeemCode, ssoSession, type Tokens } from "./code-flow.ts";
import { DEMO_USERS, DEMO_WEB } from "./demo-accounts.ts";
import { firstRefreshToken, refreshGrant, REFRESHING_CLIENT } from "./refresh-flow.ts";
import type { LoadRequest, SessionSource } from "./load-protocol.ts";
import { logTail } from "./provider-process.ts";
import type { FlowScenario, RequestScenario, Scenario, ScenarioName } from "./scenarios.ts";
import { LDAP_LABEL, PEER_LABEL, type BenchServers } from "./servers.ts";
import { tokenFormatOf, tokenDifferences } from "./token-claims.ts";

export interface Preflight {
  /** The request each request scenario repeats (userinfo's carries a token). */
  requests: Map<ScenarioName, LoadRequest>;
  /** The same for the peer (with --peer): its own userinfo token. */
  peerRequests: Map<ScenarioName, LoadRequest>;
  /** Ceilings (and the peer) whose token responses differ from the provider's, for the report. */
  notes: string[];
}

/**
 * One request (or one whole flow) per scenario and server before any load: a misconfiguration is one
 * clear error, not N failed requests. A ceiling gets the provider's very request, and its token response
 * is compared with the provider's (token-claims.ts): a ceiling that no longer does the provider's work
 * is reported, not silently trusted.
 */
export async function preflight(servers: BenchServers, scenarios: readonly Scenario[]): Promise<Preflight> {
  const { provider } = servers;
  const result: Preflight = { requests: new Map(), peerRequests: new Map(), notes: [] };
  for (const scenario of scenarios) {
    if (scenario.kind === "directory") {
      await failingAs(`${scenario.label} preflight failed`, "", () => oneCheck(servers));
      continue;
    }
    const ceiling = servers.ceilings.get(scenario.name);
    const providerAnswer = await failingAs(
      `${scenario.label} preflight failed`,
      `\nprovider log:\n${logTail(provider.logFile)}`,
      async () => {
        const tokenUrl = tokenUrlOf("provider", provider.baseUrl);
        if (scenario.kind === "flow") return oneFlow(provider.baseUrl, scenario, "login-page", tokenUrl);
        const request = await scenario.prepare(provider.baseUrl, tokenUrl);
        result.requests.set(scenario.name, request);
        return checkOnce(provider.baseUrl, scenario, request);
      },
    );
    if (servers.peer) {
      const peerAnswer = await peerPreflight(servers.peer.baseUrl, scenario, result.peerRequests);
      // Not a fault: what the peer's tokens carry besides or instead of the provider's, for the reader
      // (other answers, discovery's metadata, differ by design).
      // A login's nonce is random per flow (logInAndRedeem), so two logins' nonces always differ.
      const differences =
        "access_token" in providerAnswer
          ? tokenDifferences(providerAnswer, peerAnswer).filter((d) => !d.startsWith("id_token nonce:"))
          : [];
      if (differences.length > 0)
        result.notes.push(`${PEER_LABEL}, ${scenario.label}: its tokens differ from the provider's (${differences.join("; ")})`);
    }
    if (servers.ldap && scenario.kind === "flow" && scenario.ldapDifference !== undefined) {
      const ldap = servers.ldap;
      const ldapAnswer = await failingAs(
        `${scenario.label} ${LDAP_LABEL} preflight failed`,
        `\nprovider log:\n${logTail(ldap.logFile)}`,
        () => oneFlow(ldap.baseUrl, scenario, "login-page", tokenUrlOf("provider", ldap.baseUrl)),
      );
      // The same demo users and clients: its tokens must be the other provider's, but for a login's random nonce
      // (which the provider's access tokens carry too).
      const differences = tokenDifferences(providerAnswer, ldapAnswer).filter((d) => !/^(id|access)_token nonce:/.test(d));
      if (differences.length > 0)
        result.notes.push(
          `provider ${LDAP_LABEL}, ${scenario.label}: its tokens differ from the provider's on users.yaml (${differences.join("; ")})`,
        );
    }
    if (!ceiling) continue;
    const label = scenario.ceiling!.label;
    const ceilingAnswer = await failingAs(`${label} preflight failed`, "", () =>
      scenario.kind === "flow"
        ? oneFlow(ceiling.baseUrl, scenario, "bench-endpoint", tokenUrlOf("provider", ceiling.baseUrl))
        : checkOnce(ceiling.baseUrl, scenario, result.requests.get(scenario.name)!),
    );
    const differences = tokenDifferences(providerAnswer, ceilingAnswer);
    if (differences.length > 0)
      result.notes.push(`${label}: its tokens are not the provider's (${differences.join("; ")}); the ceiling needs updating`);
  }
  return result;
}

/** One check of the directory (a search and a bind) for each person the `directory` scenario checks. */
async function oneCheck(servers: BenchServers): Promise<void> {
  const { target } = servers.directory!;
  const connections = openConnections(target);
  try {
    for (const person of target.people) await checkPerson(target, connections, person);
  } finally {
    await closeConnections(connections);
  }
}

/** The peer's preflight: its own request (userinfo: a token from its own login), or one flow through its login page. */
function peerPreflight(
  baseUrl: string,
  scenario: RequestScenario | FlowScenario,
  requests: Map<ScenarioName, LoadRequest>,
): Promise<Record<string, unknown>> {
  return failingAs(`${PEER_LABEL}, ${scenario.label} preflight failed`, "", async () => {
    const tokenUrl = tokenUrlOf("peer", baseUrl);
    if (scenario.kind === "flow") return oneFlow(baseUrl, scenario, "login-page", tokenUrl);
    const request = await scenario.prepare(baseUrl, tokenUrl);
    requests.set(scenario.name, request);
    return checkOnce(baseUrl, scenario, request);
  });
}

async function failingAs<T>(what: string, context: string, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    throw error instanceof BenchError ? error : new BenchError(`${what}: ${(error as Error).message}${context}`);
  }
}

/** The request once, checked as the scenario checks it; the parsed JSON answer. */
async function checkOnce(
  baseUrl: string,
  scenario: Extract<Scenario, { kind: "request" }>,
  request: LoadRequest,
): Promise<Record<string, unknown>> {
  const { path, method, proofs } = request;
  let { headers, body } = request;
  // As the load generator sends it: with fresh proofs of its own.
  if (proofs) {
    const fresh = proofMaker(proofs)();
    headers = { ...headers, ...fresh.headers };
    const extra = new URLSearchParams(fresh.form).toString();
    if (extra !== "") body = `${body ?? ""}&${extra}`;
  }
  const response = await fetch(new URL(path, baseUrl), {
    method,
    ...(headers ? { headers } : {}),
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  const problem = scenario.preflight(response.status, text);
  if (problem) throw new Error(problem);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * One flow as the load generator runs it (same scope, PKCE, checks): login is one login flow; sso gets a
 * session first, then authorizes on it; refresh gets a refresh token on such a session, then refreshes
 * it twice (a rotated token must refresh too), and its access tokens must be of the scenario's format;
 * with a proof scenario's client, whose DPoP proofs name `tokenUrl`, and whose tokens must then be DPoP-bound.
 * The last token response.
 */
async function oneFlow(
  baseUrl: string,
  { flow, accessTokens = "jwt", proof }: FlowScenario,
  sessionFrom: SessionSource,
  tokenUrl: string,
): Promise<Tokens> {
  const agent = oneConnection();
  try {
    const send = httpSender(baseUrl, agent);
    if (flow === "login") return (await logInAndRedeem(send, DEMO_USERS[0], DEMO_WEB.scope)).tokens;
    const jar = await ssoSession(send, DEMO_USERS[0], sessionFrom, DEMO_WEB.scope);
    const pkce = pkcePair();
    if (flow === "refresh") {
      const client = proof ? proofWebClient(proof.kind, tokenUrl) : REFRESHING_CLIENT[accessTokens];
      const first = await refreshGrant(send, await firstRefreshToken(new Browser(send, jar), send, "preflight", pkce, client), client);
      const second = await refreshGrant(send, first.refresh_token, client);
      const issued = tokenFormatOf(second.access_token);
      if (issued !== accessTokens)
        throw new Error(
          `${client.clientId}'s refreshed access token is a ${issued} one; the scenario measures ${accessTokens} access tokens`,
        );
      const tokenType = String(second.token_type).toLowerCase();
      if (proof && tokenType !== (proof.kind === "dpop" ? "dpop" : "bearer"))
        throw new Error(`${client.clientId}'s refreshed access token has token_type ${String(second.token_type)}`);
      return second;
    }
    const answer = await new Browser(send, jar).authorize({ scope: DEMO_WEB.scope, state: "preflight", nonce: "preflight", pkce });
    if (!("code" in answer)) throw new Error("a browser with an SSO session was sent to the login page");
    return await redeemCode(send, answer.code, pkce);
  } finally {
    agent.destroy();
  }
}
