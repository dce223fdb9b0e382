import { hashSecret, verifySecret } from "../crypto/secret-hash.ts";
import type { Client, ClientAuthMethod, ClientRegistry } from "./client-registry.ts";
import { invalidClient, OAuthError } from "../errors/oauth-error.ts";
import type { Params } from "../http-kit/params.ts";
import { extractClientCredentials, type PresentedCredentials } from "./client-credentials-extract.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { ClientAuthFailure } from "../audit/audit-event.ts";
import type { Clock } from "../time/clock.ts";
import { matchSecret } from "./client-secrets.ts";
import type { ClientAuthenticationServices } from "./client-authentication-services.ts";
import { ASSERTION_TIME_RULES, AssertionRejected, verifyClientAssertion } from "./verify-client-assertion.ts";

// Compared against when the client is unknown, so an unknown id costs what a wrong secret costs.
const DUMMY_HASH = hashSecret("portcullis-no-such-client");

/**
 * What client authentication reads of the request's scope ({ infra, policy }, src/infra/scope.ts):
 * a Scope is one. Declared here because src/oauth sits below src/infra.
 */
export interface ClientAuthScope {
  readonly infra: {
    readonly issuer: string;
    readonly clock: Clock;
    readonly audit: AuditTrail;
    readonly clientAuthentication: ClientAuthenticationServices;
  };
  readonly policy: { readonly clients: ClientRegistry };
}

/** What an endpoint hands over of its request: the Authorization header and the form it read. */
export interface ClientAuthRequest {
  readonly authorization: string | undefined;
  readonly params: Params;
}

/**
 * The one client authentication of every endpoint a client calls with its credentials (token,
 * revocation, pushed authorization requests): client_secret_basic, client_secret_post, private_key_jwt
 * (RFC 7523) or none, each only for a client whose token_endpoint_auth_method allows it. Public clients
 * present no secret (they prove themselves with PKCE). The rules do not depend on the endpoint: an
 * assertion's audience is the issuer wherever it is presented. Every failure is the same 401
 * invalid_client, audited with its reason; a success is audited with the secret (fingerprint) or key
 * (kid) that proved it.
 */
export async function authenticateClient(scope: ClientAuthScope, request: ClientAuthRequest): Promise<Client> {
  const { audit } = scope.infra;
  let presented: PresentedCredentials;
  try {
    presented = extractClientCredentials(request.authorization, request.params);
  } catch (err) {
    if (err instanceof OAuthError && err.error === "invalid_client")
      audit.record({ type: "client.authentication_failed", reason: "malformed" });
    throw err;
  }
  const method = methodOf(presented);
  const fail = (client: Client | undefined, failure: Omit<ClientAuthFailure, "type" | "client_id" | "method">) => {
    audit.record({ type: "client.authentication_failed", ...(client && { client_id: client.id }), method, ...failure });
    return invalidClient("client authentication failed", presented.usedBasic);
  };

  const client = scope.policy.clients.get(presented.clientId);
  if (!client) {
    verifySecret(presented.secret ?? "", DUMMY_HASH);
    throw fail(undefined, { reason: "unknown_client" });
  }
  if (!client.authMethods.has(method)) throw fail(client, { reason: "method_not_allowed" });
  if (method === "none") return client;
  if (presented.assertion !== undefined) return authenticateByAssertion(scope, client, presented.assertion, fail);

  const match = matchSecret(client.secrets, presented.secret ?? "", scope.infra.clock());
  if (match === undefined) throw fail(client, { reason: "wrong_secret" });
  if (match.expired) throw fail(client, { reason: "expired_secret", secret_fingerprint: match.secret.fingerprint });
  audit.record({ type: "client.authenticated", client_id: client.id, method, secret_fingerprint: match.secret.fingerprint });
  return client;
}

/** private_key_jwt: the assertion verified against the client's keys, then its jti claimed once across every node. */
async function authenticateByAssertion(
  { infra }: ClientAuthScope,
  client: Client,
  assertion: string,
  fail: (client: Client, failure: Omit<ClientAuthFailure, "type" | "client_id" | "method">) => OAuthError,
): Promise<Client> {
  const { issuer, clock, clientAuthentication } = infra;
  const source = client.keys;
  const keysFor = async (kid: string | undefined) =>
    source === undefined ? [] : "inline" in source ? source.inline : clientAuthentication.remoteJwks.keys(source.uri, kid);
  let accepted: Awaited<ReturnType<typeof verifyClientAssertion>>;
  try {
    accepted = await verifyClientAssertion(assertion, client.id, issuer, keysFor, clock);
  } catch (err) {
    if (err instanceof AssertionRejected) throw fail(client, { reason: err.reason });
    throw err;
  }
  const kid = accepted.kid !== undefined ? { kid: accepted.kid } : {};
  if (!(await clientAuthentication.replay.claim(client.id, accepted.jti, accepted.exp, ASSERTION_TIME_RULES.skewSeconds)))
    throw fail(client, { reason: "replayed", ...kid });
  infra.audit.record({ type: "client.authenticated", client_id: client.id, method: "private_key_jwt", ...kid });
  return client;
}

/** The method the request used, as token_endpoint_auth_method names it. */
function methodOf(presented: PresentedCredentials): ClientAuthMethod {
  if (presented.assertion !== undefined) return "private_key_jwt";
  if (presented.usedBasic) return "client_secret_basic";
  return presented.secret !== undefined ? "client_secret_post" : "none";
}
