/**
 * verifyClientAssertion checks the signature with the provider's own node:crypto verifier
 * (src/tokens/jws-verifier.ts) and the time claims itself. Its reference is the jose implementation it
 * replaced, kept here: for every assertion the two must accept with the same result or refuse for the
 * same reason. The one intended difference, a segment that is not canonical base64url, is not generated.
 */
import { constants, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import fc from "fast-check";
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { describe, expect, it } from "vitest";
import { CLIENT_ASSERTION_ALGORITHMS, type ClientAssertionAlgorithm } from "../../src/crypto/client-jwk.ts";
import { type ClientPublicKey, parsePublicKeys } from "../../src/crypto/client-public-keys.ts";
import {
  type AcceptedAssertion,
  ASSERTION_TIME_RULES,
  AssertionRejected,
  type AssertionRejection,
  verifyClientAssertion,
} from "../../src/oauth/verify-client-assertion.ts";

const ISSUER = "https://login.example.com";
const NOW = 1_900_000_000;
const clock = () => NOW * 1000;

/** The jose implementation verifyClientAssertion had before (its body, as it was). */
async function joseVerifyClientAssertion(
  assertion: string,
  clientId: string,
  issuer: string,
  keysFor: (kid: string | undefined) => Promise<readonly ClientPublicKey[]>,
): Promise<AcceptedAssertion> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(assertion);
  } catch {
    throw new AssertionRejected("malformed");
  }
  const alg = header.alg as ClientAssertionAlgorithm;
  if (!CLIENT_ASSERTION_ALGORITHMS.includes(alg)) throw new AssertionRejected("algorithm_not_allowed");
  if ((header.typ !== undefined && typeof header.typ !== "string") || (header.kid !== undefined && typeof header.kid !== "string"))
    throw new AssertionRejected("malformed");
  if (header.typ !== undefined && !["jwt", "client-authentication+jwt"].includes(header.typ.toLowerCase().replace(/^application\//, "")))
    throw new AssertionRejected("type_not_allowed");
  const kid = header.kid;
  const candidates = (await keysFor(kid)).filter((k) => (kid === undefined || k.kid === kid) && k.algorithms.includes(alg));
  if (candidates.length === 0) throw new AssertionRejected("no_matching_key");
  const { skewSeconds, maxLifetimeSeconds } = ASSERTION_TIME_RULES;
  let payload: JWTPayload | undefined;
  let signer: ClientPublicKey | undefined;
  for (const candidate of candidates) {
    try {
      ({ payload } = await jwtVerify(assertion, candidate.key, {
        algorithms: [alg],
        clockTolerance: skewSeconds,
        currentDate: new Date(clock()),
        requiredClaims: ["exp"],
      }));
      signer = candidate;
      break;
    } catch (err) {
      const code = (err as { code?: string }).code;
      const reason: AssertionRejection =
        code === "ERR_JWT_EXPIRED"
          ? "expired"
          : code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED"
            ? "bad_signature"
            : code === "ERR_JWT_CLAIM_VALIDATION_FAILED"
              ? "invalid_claims"
              : "malformed";
      if (reason !== "bad_signature") throw new AssertionRejected(reason);
    }
  }
  if (payload === undefined || signer === undefined) throw new AssertionRejected("bad_signature");
  const now = NOW;
  if (payload.iss !== clientId || payload.sub !== clientId) throw new AssertionRejected("wrong_issuer_or_subject");
  const aud = payload.aud;
  const audienceIsIssuer = typeof aud === "string" ? aud === issuer : Array.isArray(aud) && aud.length === 1 && aud[0] === issuer;
  if (!audienceIsIssuer) throw new AssertionRejected("wrong_audience");
  if (payload.exp! > now + maxLifetimeSeconds + skewSeconds) throw new AssertionRejected("exp_too_far");
  if (payload.iat !== undefined && payload.iat > now + skewSeconds) throw new AssertionRejected("not_yet_valid");
  if (typeof payload.jti !== "string" || payload.jti.length === 0 || payload.jti.length > 512) throw new AssertionRejected("jti_missing");
  return { kid: signer.kid, jti: payload.jti, exp: payload.exp! };
}

const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwkOf = (key: KeyObject, kid: string) => ({ ...key.export({ format: "jwk" }), kid, use: "sig" });
const keys = parsePublicKeys({ keys: [jwkOf(ec.publicKey, "k1"), jwkOf(rsa.publicKey, "k2")] });

/** A real signature when the private key can make one under `alg`, else bytes that look like one. */
function signatureOf(alg: string, key: KeyObject, input: Buffer): Buffer {
  const type = key.asymmetricKeyType;
  if (alg === "ES256" && type === "ec") return sign("sha256", input, { key, dsaEncoding: "ieee-p1363" });
  if (alg === "RS256" && type === "rsa") return sign("sha256", input, key);
  if (alg === "PS256" && type === "rsa") return sign("sha256", input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  return Buffer.alloc(64, 7);
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** The correct value most of the time, so that many assertions differ from a valid one in one or two places. */
const mostly = <T>(valid: T, ...others: T[]) =>
  fc.oneof({ arbitrary: fc.constant(valid), weight: 6 }, { arbitrary: fc.constantFrom(...others), weight: 1 });
const time = (valid: number | undefined) =>
  fc.oneof(
    { arbitrary: fc.constant<unknown>(valid), weight: 4 },
    { arbitrary: fc.integer({ min: NOW - 60, max: NOW + 400 }), weight: 2 },
    // Each limit and a second either side of it: the skew behind (exp), the skew ahead (nbf, iat), 5 minutes plus the skew (exp).
    { arbitrary: fc.constantFrom(...[-30, 30, 330].flatMap((at) => [NOW + at - 1, NOW + at, NOW + at + 1])), weight: 2 },
    { arbitrary: fc.constantFrom<unknown>(undefined, "soon", null, NOW + 0.5, true), weight: 1 },
  );

const assertions = fc
  .record({
    header: fc.record({
      alg: fc.constantFrom("ES256", "RS256", "PS256", "none", "HS256", "EdDSA"),
      kid: mostly<unknown>(undefined, "k1", "k2", "other", 7),
      typ: mostly<unknown>(undefined, "JWT", "jwt", "application/client-authentication+jwt", "at+jwt", 5),
      crit: mostly<unknown>(undefined, ["b64"], ["exp"], []),
      b64: mostly<unknown>(undefined, true, false),
    }),
    claims: fc.record({
      iss: mostly<unknown>("app", "other", undefined),
      sub: mostly<unknown>("app", "other", undefined),
      aud: mostly<unknown>(ISSUER, [ISSUER], [ISSUER, "https://other"], `${ISSUER}/connect/token`, undefined),
      exp: time(NOW + 60),
      nbf: time(undefined),
      iat: time(NOW),
      jti: mostly<unknown>("j-1", "", "x".repeat(513), 42, undefined),
    }),
    signer: fc.constantFrom(ec.privateKey, rsa.privateKey, stranger.privateKey),
    tamper: mostly(false, true),
  })
  .map(({ header, claims, signer, tamper }) => {
    const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    const input = `${part(strip(header))}.${part(strip(claims))}`;
    const signature = signatureOf(header.alg, signer, Buffer.from(input));
    if (tamper) signature[0]! ^= 1;
    return `${input}.${signature.toString("base64url")}`;
  });

const outcome = (promise: Promise<AcceptedAssertion>) =>
  promise.then(
    (accepted) => ({ accepted }),
    (err: unknown) => (err instanceof AssertionRejected ? { refused: err.reason } : { threw: String(err) }),
  );

describe("verifyClientAssertion against the jose implementation it replaced", () => {
  it("accepts and refuses the same assertions for the same reasons", async () => {
    await fc.assert(
      fc.asyncProperty(assertions, async (assertion) => {
        const keysFor = async () => keys;
        const ours = await outcome(verifyClientAssertion(assertion, "app", ISSUER, keysFor, clock));
        const theirs = await outcome(joseVerifyClientAssertion(assertion, "app", ISSUER, keysFor));
        expect(ours).toEqual(theirs);
        expect(ours).not.toHaveProperty("threw");
      }),
      { numRuns: 2000 },
    );
  });

  it("generates accepted assertions and every reason for refusing one, so the comparison covers them all", async () => {
    const outcomes = await Promise.all(
      fc
        .sample(assertions, { numRuns: 3000, seed: 28 })
        .map((assertion) => outcome(verifyClientAssertion(assertion, "app", ISSUER, async () => keys, clock))),
    );
    const seen = new Set(outcomes.map((o) => ("accepted" in o ? "accepted" : "refused" in o ? o.refused : "threw")));
    expect([...seen].sort()).toEqual(
      [
        "accepted",
        "algorithm_not_allowed",
        "bad_signature",
        "expired",
        "exp_too_far",
        "invalid_claims",
        "jti_missing",
        "malformed",
        "no_matching_key",
        "not_yet_valid",
        "type_not_allowed",
        "wrong_audience",
        "wrong_issuer_or_subject",
      ].sort(),
    );
  });
});
