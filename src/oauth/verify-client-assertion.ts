import { decodeProtectedHeader } from "jose";
import { CLIENT_ASSERTION_ALGORITHMS, type ClientAssertionAlgorithm } from "../crypto/client-jwk.ts";
import { verificationKeyOf } from "../tokens/key-set.ts";
import { verifyJwt } from "../tokens/jws-verifier.ts";
import { epochSeconds, type Clock } from "../time/clock.ts";
import type { ClientPublicKey } from "../crypto/client-public-keys.ts";

/** RFC 7523 §2.2: the one client_assertion_type this provider accepts. */
export const JWT_BEARER_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** The rules of an assertion's times (docs/client-authentication.md). */
export const ASSERTION_TIME_RULES = {
  /** Clocks of the client and the provider may differ this much either way. */
  skewSeconds: 30,
  /**
   * exp may lie at most this far ahead: an assertion is made for one request, and its jti is kept (in
   * the store, on every node) until it expires, so a far exp would be a long-lived credential and a
   * store filled for as long.
   */
  maxLifetimeSeconds: 300,
} as const;

/** Why an assertion was refused: the audit trail's reason (the client only ever hears invalid_client). */
export type AssertionRejection =
  | "malformed"
  | "algorithm_not_allowed"
  | "type_not_allowed"
  | "no_matching_key"
  | "bad_signature"
  | "expired"
  | "not_yet_valid"
  | "invalid_claims"
  | "exp_too_far"
  | "wrong_issuer_or_subject"
  | "wrong_audience"
  | "jti_missing"
  | "replayed";

export class AssertionRejected extends Error {
  static readonly code: string = "ERR_CLIENT_ASSERTION_REJECTED";
  readonly code: string = "ERR_CLIENT_ASSERTION_REJECTED";
  readonly reason: AssertionRejection;
  constructor(reason: AssertionRejection) {
    super(`client assertion rejected: ${reason}`);
    this.reason = reason;
  }
}

/** What an accepted assertion tells: the key that signed it, and its jti and exp for the replay check. */
export interface AcceptedAssertion {
  kid: string | undefined;
  jti: string;
  exp: number;
}

/** The typ values that say "a JWT", or RFC 7523bis's explicit type; an other type (an ID token's, at+jwt) is another kind of token. */
const ACCEPTED_TYPES = new Set(["jwt", "client-authentication+jwt"]);

/**
 * Checks a private_key_jwt client assertion (RFC 7523 §3, RFC 7521 §4.2, OIDC Core §9) for `clientId`:
 * an asymmetric algorithm the key fits, a signature by one of the client's keys, iss = sub = client_id,
 * the issuer as the one audience (FAPI 2.0 Security Profile §5.3.2.1 and RFC 7523bis after the 2025
 * audience-injection finding: not the endpoint's URL, not an array naming others), exp present and near,
 * nbf and iat not in the future, and a jti. Whether the jti was used before is the caller's check (the
 * store's), made only for an assertion that passed everything here, so garbage cannot burn jtis.
 */
export async function verifyClientAssertion(
  assertion: string,
  clientId: string,
  issuer: string,
  keysFor: (kid: string | undefined) => Promise<readonly ClientPublicKey[]>,
  clock: Clock,
  /** The sender's algorithms, among CLIENT_ASSERTION_ALGORITHMS (a FAPI 2.0 client's exclude RS256). */
  algorithms: readonly ClientAssertionAlgorithm[] = CLIENT_ASSERTION_ALGORITHMS,
): Promise<AcceptedAssertion> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(assertion);
  } catch {
    throw new AssertionRejected("malformed");
  }
  const alg = header.alg as ClientAssertionAlgorithm;
  if (!CLIENT_ASSERTION_ALGORITHMS.includes(alg) || !algorithms.includes(alg)) throw new AssertionRejected("algorithm_not_allowed");
  // The header is the sender's JSON: a member of the wrong type is refused, never passed on to a string method.
  if ((header.typ !== undefined && typeof header.typ !== "string") || (header.kid !== undefined && typeof header.kid !== "string"))
    throw new AssertionRejected("malformed");
  if (header.typ !== undefined && !ACCEPTED_TYPES.has(header.typ.toLowerCase().replace(/^application\//, "")))
    throw new AssertionRejected("type_not_allowed");
  const kid = header.kid;
  const candidates = (await keysFor(kid)).filter((k) => (kid === undefined || k.kid === kid) && k.algorithms.includes(alg));
  if (candidates.length === 0) throw new AssertionRejected("no_matching_key");

  // The signature, checked synchronously by the verifier our own tokens go through (jws-verifier.ts, held to
  // jose by a property test); jose's jwtVerify took a WebCrypto thread-pool job per assertion.
  let claims: Record<string, unknown> | undefined;
  let signer: ClientPublicKey | undefined;
  for (const candidate of candidates) {
    try {
      ({ claims } = verifyJwt(assertion, () => verificationKeyOf(alg, candidate.key)));
      signer = candidate;
      break;
    } catch (err) {
      // Without a kid, the next key of the right kind may be the one that signed it.
      if ((err as { code?: string }).code !== SIGNATURE_FAILED) throw new AssertionRejected("malformed");
    }
  }
  if (claims === undefined || signer === undefined) throw new AssertionRejected("bad_signature");

  const now = epochSeconds(clock);
  const exp = checkTimes(claims, now);
  const { skewSeconds, maxLifetimeSeconds } = ASSERTION_TIME_RULES;
  if (claims.iss !== clientId || claims.sub !== clientId) throw new AssertionRejected("wrong_issuer_or_subject");
  if (!audienceIsIssuer(claims.aud, issuer)) throw new AssertionRejected("wrong_audience");
  if (exp > now + maxLifetimeSeconds + skewSeconds) throw new AssertionRejected("exp_too_far");
  if (typeof claims.iat === "number" && claims.iat > now + skewSeconds) throw new AssertionRejected("not_yet_valid");
  if (typeof claims.jti !== "string" || claims.jti.length === 0 || claims.jti.length > 512) throw new AssertionRejected("jti_missing");
  return { kid: signer.kid, jti: claims.jti, exp };
}

const SIGNATURE_FAILED = "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";

/**
 * The time claims as jose's jwtVerify checked them, with the skew as its clockTolerance: exp required,
 * iat, nbf and exp numbers when present, nbf not ahead, exp not past. Returns exp.
 */
function checkTimes(claims: Record<string, unknown>, now: number): number {
  const { skewSeconds } = ASSERTION_TIME_RULES;
  const { exp, iat, nbf } = claims;
  if (exp === undefined || (iat !== undefined && typeof iat !== "number")) throw new AssertionRejected("invalid_claims");
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > now + skewSeconds)) throw new AssertionRejected("invalid_claims");
  if (typeof exp !== "number") throw new AssertionRejected("invalid_claims");
  if (exp <= now - skewSeconds) throw new AssertionRejected("expired");
  return exp;
}

/** The issuer identifier, alone: as a string, or as an array holding nothing else (RFC 7519 allows either form of one audience). */
function audienceIsIssuer(aud: unknown, issuer: string): boolean {
  if (typeof aud === "string") return aud === issuer;
  return Array.isArray(aud) && aud.length === 1 && aud[0] === issuer;
}
