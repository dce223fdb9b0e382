import { createECDH, createHash, createPrivateKey, randomBytes, sign, type KeyObject } from "node:crypto";

/** What a scenario's client adds to each token request: a DPoP proof, or a client assertion instead of its secret. */
export type ProofKind = "dpop" | "private_key_jwt";

/**
 * What a DPoP or private_key_jwt client sends with each token request, made fresh per request as a real
 * client does: a DPoP proof (RFC 9449: new jti and iat, ath when presenting a token) and a client
 * assertion (RFC 7523: new jti). Both are ES256, signed with node:crypto in the load generator's own
 * process (its core, not the server's): one P-256 signature each, tens of µs.
 */

/** A bench client's ES256 key: the private key signs, the public JWK goes into the servers' client configurations. */
export interface BenchKey {
  privateKey: KeyObject;
  publicJwk: { kty: "EC"; crv: "P-256"; x: string; y: string; kid: string };
}

/**
 * The P-256 key named `label`, derived from it (d = SHA-256 of the label), so the provider's config, the
 * peer and the load generators (separate processes) hold the same key without passing it around, and no
 * private key is committed. A bench key, known to anyone who reads this: never a real client's.
 */
export function benchKey(label: string): BenchKey {
  const d = createHash("sha256").update(`portcullis-bench-key:${label}`).digest();
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(d);
  // Uncompressed point: 0x04, then x and y, 32 bytes each.
  const point = ecdh.getPublicKey();
  const x = point.subarray(1, 33).toString("base64url");
  const y = point.subarray(33, 65).toString("base64url");
  const privateKey = createPrivateKey({ key: { kty: "EC", crv: "P-256", x, y, d: d.toString("base64url") }, format: "jwk" });
  return { privateKey, publicJwk: { kty: "EC", crv: "P-256", x, y, kid: label } };
}

/** What a load generator adds to one token request. JSON, so that the bench can hand it to its workers. */
export interface ProofSpec {
  /** A DPoP proof by the key `key` for POST `htu` (the token endpoint's URL as that server checks it). */
  dpop?: { key: string; htu: string };
  /** A private_key_jwt assertion by `clientId` with the key `key`, for `audience` (the issuer). */
  assertion?: { clientId: string; key: string; audience: string };
}

/** The header and form members one request carries. */
export interface RequestProofs {
  headers: Record<string, string>;
  form: Record<string, string>;
}

export const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** A client assertion's lifetime: a client makes one per request, so a minute is plenty. */
const ASSERTION_SECONDS = 60;

/**
 * A maker of fresh proofs for `spec`; the keys are derived once. Each call signs anew (new jti, iat
 * now); `accessToken`, when given, goes into the DPoP proof's ath (a resource request).
 */
export function proofMaker(spec: ProofSpec, now: () => number = Date.now): (accessToken?: string) => RequestProofs {
  const dpop = spec.dpop && { ...spec.dpop, signer: es256Signer(benchKey(spec.dpop.key), "dpop") };
  const assertion = spec.assertion && { ...spec.assertion, signer: es256Signer(benchKey(spec.assertion.key), "assertion") };
  return (accessToken) => {
    const iat = Math.floor(now() / 1000);
    const proofs: RequestProofs = { headers: {}, form: {} };
    if (dpop) {
      const claims: Record<string, unknown> = { jti: newJti(), htm: "POST", htu: dpop.htu, iat };
      if (accessToken !== undefined) claims.ath = createHash("sha256").update(accessToken).digest("base64url");
      proofs.headers.dpop = dpop.signer(claims);
    }
    if (assertion) {
      const { clientId, audience } = assertion;
      proofs.form.client_assertion_type = JWT_BEARER_ASSERTION;
      proofs.form.client_assertion = assertion.signer({
        iss: clientId,
        sub: clientId,
        aud: audience,
        jti: newJti(),
        iat,
        exp: iat + ASSERTION_SECONDS,
      });
    }
    return proofs;
  };
}

/**
 * ES256 compact JWS with a fixed header: a DPoP proof's carries the public key (typ dpop+jwt), an
 * assertion's names it by kid. The header is encoded once; only the claims and the signature are per call.
 */
function es256Signer(key: BenchKey, kind: "dpop" | "assertion"): (claims: Record<string, unknown>) => string {
  const { kid, ...jwk } = key.publicJwk;
  const header = kind === "dpop" ? { typ: "dpop+jwt", alg: "ES256", jwk } : { alg: "ES256", kid };
  const encodedHeader = base64urlJson(header);
  return (claims) => {
    const input = `${encodedHeader}.${base64urlJson(claims)}`;
    // JWS wants the raw r‖s (IEEE P1363), not DER.
    const signature = sign("sha256", Buffer.from(input), { key: key.privateKey, dsaEncoding: "ieee-p1363" });
    return `${input}.${signature.toString("base64url")}`;
  };
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function newJti(): string {
  return randomBytes(16).toString("base64url");
}
