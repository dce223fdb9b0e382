import { hashSecret, verifySecret } from "../crypto/secret-hash.ts";
import { invalidClient, OAuthError } from "../errors/oauth-error.ts";
import type { Params } from "../http-kit/params.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { ClientAuthFailure } from "../audit/audit-event.ts";
import type { Clock } from "../time/clock.ts";
import { type ClientSecret, matchSecret } from "../crypto/client-secrets.ts";
import type { PublicKeySource } from "../crypto/client-public-keys.ts";
import { extractClientCredentials, type PresentedCredentials } from "./client-credentials-extract.ts";
import type { ClientAuthenticationServices } from "./client-authentication-services.ts";
import { ASSERTION_TIME_RULES, AssertionRejected, verifyClientAssertion } from "./verify-client-assertion.ts";
import { CLIENT_ASSERTION_ALGORITHMS, type ClientAssertionAlgorithm } from "../crypto/client-jwk.ts";

// Compared against when the caller is unknown, so an unknown id costs what a wrong secret costs.
const DUMMY_HASH = hashSecret("portcullis-no-such-client");

/** token_endpoint_auth_method's values: how a caller proves itself. */
export type AuthMethod = "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";

/** A caller that proves itself with a secret or a key: a client, or an API resource at introspection. */
export interface CredentialHolder {
  readonly id: string;
  readonly authMethods: ReadonlySet<AuthMethod>;
  readonly secrets: readonly ClientSecret[];
  readonly keys: PublicKeySource | undefined;
  /** The algorithms its assertions may be signed with (a FAPI 2.0 client's are fewer); omitted: every one the provider takes. */
  readonly assertionAlgorithms?: readonly ClientAssertionAlgorithm[];
}

/**
 * What authentication reads of the request's scope ({ infra, policy }, src/infra/scope.ts): a Scope has
 * all of it. Declared here because src/oauth sits below src/infra.
 */
export interface AuthServicesScope {
  readonly infra: {
    readonly issuer: string;
    readonly clock: Clock;
    readonly audit: AuditTrail;
    readonly clientAuthentication: ClientAuthenticationServices;
  };
}

/** What an endpoint hands over of its request: the Authorization header and the form it read. */
export interface ClientAuthRequest {
  readonly authorization: string | undefined;
  readonly params: Params;
}

/** Who is authenticating: how to find them by id, and whether their acts go to the audit trail. */
export interface PartyKind<T extends CredentialHolder> {
  /** Separates the kinds' assertion jtis in the store (a client and a resource may share a name). */
  readonly name: "client" | "api_resource";
  find(id: string): T | undefined;
  readonly audited: boolean;
}

type Failure = Omit<ClientAuthFailure, "type" | "client_id" | "method">;

/**
 * The one authentication of a caller by secret (client_secret_basic, client_secret_post), key
 * (private_key_jwt, RFC 7523) or nothing (none), each only where its authMethods allow it. The rules do
 * not depend on the endpoint: an assertion's audience is the issuer wherever it is presented. Every
 * failure is the same 401 invalid_client; for an audited kind it is recorded with its reason, and a
 * success with the secret (fingerprint) or key (kid) that proved it.
 */
export async function authenticateParty<T extends CredentialHolder>(
  scope: AuthServicesScope,
  request: ClientAuthRequest,
  kind: PartyKind<T>,
): Promise<T> {
  const { audit, clock } = scope.infra;
  const record: AuditTrail["record"] = (event) => {
    if (kind.audited) audit.record(event);
  };
  let presented: PresentedCredentials;
  try {
    presented = extractClientCredentials(request.authorization, request.params);
  } catch (err) {
    if (err instanceof OAuthError && err.error === "invalid_client") record({ type: "client.authentication_failed", reason: "malformed" });
    throw err;
  }
  const method = methodOf(presented);
  const fail = (party: T | undefined, failure: Failure) => {
    record({ type: "client.authentication_failed", ...(party && { client_id: party.id }), method, ...failure });
    return invalidClient("client authentication failed", presented.usedBasic);
  };

  const party = kind.find(presented.clientId);
  if (!party) {
    verifySecret(presented.secret ?? "", DUMMY_HASH);
    throw fail(undefined, { reason: "unknown_client" });
  }
  if (!party.authMethods.has(method)) throw fail(party, { reason: "method_not_allowed" });
  if (method === "none") return party;
  if (presented.assertion !== undefined) {
    const kid = await verifyAssertion(scope, kind, party, presented.assertion, (failure) => fail(party, failure));
    record({ type: "client.authenticated", client_id: party.id, method, ...(kid !== undefined && { kid }) });
    return party;
  }
  const match = matchSecret(party.secrets, presented.secret ?? "", clock());
  if (match === undefined) throw fail(party, { reason: "wrong_secret" });
  if (match.expired) throw fail(party, { reason: "expired_secret", secret_fingerprint: match.secret.fingerprint });
  record({ type: "client.authenticated", client_id: party.id, method, secret_fingerprint: match.secret.fingerprint });
  return party;
}

/** private_key_jwt: the assertion verified against the party's keys, then its jti claimed once across every node. Returns the kid that signed. */
async function verifyAssertion(
  { infra }: AuthServicesScope,
  kind: PartyKind<CredentialHolder>,
  party: CredentialHolder,
  assertion: string,
  fail: (failure: Failure) => OAuthError,
): Promise<string | undefined> {
  const source = party.keys;
  const keysFor = async (kid: string | undefined) =>
    source === undefined ? [] : "inline" in source ? source.inline : infra.clientAuthentication.remoteJwks.keys(source.uri, kid);
  let accepted: Awaited<ReturnType<typeof verifyClientAssertion>>;
  try {
    accepted = await verifyClientAssertion(
      assertion,
      party.id,
      infra.issuer,
      keysFor,
      infra.clock,
      party.assertionAlgorithms ?? CLIENT_ASSERTION_ALGORITHMS,
    );
  } catch (err) {
    if (err instanceof AssertionRejected) throw fail({ reason: err.reason });
    throw err;
  }
  const first = await infra.clientAuthentication.replay.claim(
    `${kind.name}:${party.id}`,
    accepted.jti,
    accepted.exp,
    ASSERTION_TIME_RULES.skewSeconds,
  );
  if (!first) throw fail({ reason: "replayed", ...(accepted.kid !== undefined && { kid: accepted.kid }) });
  return accepted.kid;
}

/** The method the request used, as token_endpoint_auth_method names it. */
function methodOf(presented: PresentedCredentials): AuthMethod {
  if (presented.assertion !== undefined) return "private_key_jwt";
  if (presented.usedBasic) return "client_secret_basic";
  return presented.secret !== undefined ? "client_secret_post" : "none";
}
