import { createHash } from "node:crypto";
import { TOKEN_PATH } from "./code-flow.ts";
import { benchKey, proofMaker, type ProofKind, type ProofSpec } from "./client-proofs.ts";
import { DEMO_ISSUER, DEMO_SERVICE, DEMO_WEB, type CodeFlowClient } from "./demo-accounts.ts";

/**
 * The clients of the DPoP and private_key_jwt scenarios, which the demo config does not have: the bench
 * adds them to its copy of clients.yaml (provider-process.ts) and to the peer's configuration
 * (peer/peer-configuration.ts). Each is a demo client's twin but for one thing, so that a scenario ÷ its
 * shared-secret, bearer-token twin measures that one thing: the DPoP clients authenticate with a secret
 * as demo-service and demo-web do and require a proof on every token request (require_dpop); the
 * private_key_jwt clients sign an ES256 assertion instead of sending a secret, and get bearer tokens.
 */

/** The label its ES256 key is derived from (client-proofs.ts, benchKey). */
const KEY_OF: Record<ProofKind, string> = { dpop: "bench-dpop-key", private_key_jwt: "bench-pkjwt-key" };

/** A token-endpoint client of the bench: secret-less for private_key_jwt. */
export interface BenchClient {
  clientId: string;
  clientSecret?: string;
  proof: ProofKind;
  grantTypes: readonly string[];
  allowedScopes: readonly string[];
  redirectUri?: string;
}

/** client_credentials, as demo-service: with DPoP, or with private_key_jwt. */
export const PROOF_SERVICE: Readonly<Record<ProofKind, BenchClient>> = {
  dpop: { ...DEMO_SERVICE, clientId: "bench-dpop-service", clientSecret: "bench-dpop-service-secret", proof: "dpop" },
  private_key_jwt: {
    clientId: "bench-pkjwt-service",
    proof: "private_key_jwt",
    grantTypes: DEMO_SERVICE.grantTypes,
    allowedScopes: DEMO_SERVICE.allowedScopes,
  },
};

/** The code flow and refresh grant, as demo-web (JWT access tokens): with DPoP, or with private_key_jwt. */
export const PROOF_WEB: Readonly<Record<ProofKind, BenchClient & CodeFlowClient>> = {
  dpop: {
    clientId: "bench-dpop-web",
    clientSecret: "bench-dpop-web-secret",
    proof: "dpop",
    grantTypes: DEMO_WEB.grantTypes,
    allowedScopes: DEMO_WEB.allowedScopes,
    redirectUri: DEMO_WEB.redirectUri,
  },
  private_key_jwt: {
    clientId: "bench-pkjwt-web",
    proof: "private_key_jwt",
    grantTypes: DEMO_WEB.grantTypes,
    allowedScopes: DEMO_WEB.allowedScopes,
    redirectUri: DEMO_WEB.redirectUri,
  },
};

const ALL: readonly BenchClient[] = [...Object.values(PROOF_SERVICE), ...Object.values(PROOF_WEB)];

/** The public JWK of a private_key_jwt client's key, as both servers register it. */
export function publicJwkOf(client: BenchClient): Record<string, string> {
  return benchKey(KEY_OF[client.proof]).publicJwk;
}

/** What `client`'s token requests to a server carry, that server checking DPoP proofs' htu against `tokenUrl`. */
export function proofSpecOf(client: BenchClient, tokenUrl: string): ProofSpec {
  return client.proof === "dpop"
    ? { dpop: { key: KEY_OF.dpop, htu: tokenUrl } }
    : { assertion: { clientId: client.clientId, key: KEY_OF.private_key_jwt, audience: DEMO_ISSUER } };
}

/** The refreshing client of a proof scenario, its proofs for a server that checks htu against `tokenUrl` made per request. */
export function proofWebClient(kind: ProofKind, tokenUrl: string): CodeFlowClient {
  const client = PROOF_WEB[kind];
  const make = proofMaker(proofSpecOf(client, tokenUrl));
  return { ...client, credentials: () => make() };
}

/**
 * The token endpoint's URL as a server checks a proof's htu: the provider against its issuer's URL (not
 * the address the bench reaches it at), node-oidc-provider against the URL the request came to (its
 * `ctx.href`).
 */
export function tokenUrlOf(server: "provider" | "peer", baseUrl: string): string {
  return `${server === "provider" ? DEMO_ISSUER : baseUrl}${TOKEN_PATH}`;
}

/** The bench clients as clients.yaml entries, for the provider's copy of the demo config. */
export function providerClientEntries(): Array<Record<string, unknown>> {
  return ALL.map((c) => ({
    client_id: c.clientId,
    name: `Bench ${c.proof} client`,
    type: "confidential",
    ...(c.proof === "private_key_jwt"
      ? { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [publicJwkOf(c)] } }
      : { client_secret_hash: `sha256:${createHash("sha256").update(c.clientSecret!).digest("hex")}`, require_dpop: true }),
    grant_types: [...c.grantTypes],
    ...(c.redirectUri ? { redirect_uris: [c.redirectUri], offline_access: true } : {}),
    allowed_scopes: [...c.allowedScopes],
  }));
}

/** The bench clients as node-oidc-provider client metadata. */
export function peerClientEntries(): Array<Record<string, unknown>> {
  return ALL.map((c) => ({
    client_id: c.clientId,
    grant_types: [...c.grantTypes],
    response_types: c.redirectUri ? ["code"] : [],
    redirect_uris: c.redirectUri ? [c.redirectUri] : [],
    scope: c.allowedScopes.join(" "),
    ...(c.proof === "private_key_jwt"
      ? { token_endpoint_auth_method: "private_key_jwt", token_endpoint_auth_signing_alg: "ES256", jwks: { keys: [publicJwkOf(c)] } }
      : { token_endpoint_auth_method: "client_secret_post", client_secret: c.clientSecret, dpop_bound_access_tokens: true }),
  }));
}

/** Whether node-oidc-provider should give `clientId` the API's access tokens (a service), like demo-service. */
export function isServiceClient(clientId: string): boolean {
  return clientId === DEMO_SERVICE.clientId || Object.values(PROOF_SERVICE).some((c) => c.clientId === clientId);
}
