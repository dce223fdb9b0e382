import { jwtVerify } from "jose";
import { verifyJwt } from "../../tokens/jws-verifier.ts";
import { isSigningAlg, type SigningAlg } from "../../crypto/signing-alg.ts";
import { verificationKeyOf } from "../../tokens/key-set.ts";
import { epochSeconds, type Clock } from "../../time/clock.ts";
import type { DpopNonces } from "./dpop-nonces.ts";
import type { ProofReplay } from "./proof-replay.ts";
import { accessTokenHash } from "./jwk-thumbprint.ts";
import { type ProofKey, ProofKeys } from "./proof-keys.ts";
import { DPOP_ALGORITHMS, type DpopAlgorithm } from "../../crypto/dpop-algorithms.ts";
import { invalidDpopProof, type ProofSite, useDpopNonce } from "./dpop-errors.ts";
import { sameTarget } from "./target-uri.ts";
// A proof's key must be public (RFC 9449 §4.3 check 7): the members that only a private or symmetric key has.
import { privateJwkMember } from "../../crypto/client-jwk.ts";
import { OAuthError } from "../../errors/oauth-error.ts";

/** A proof is accepted this long after its `iat` (RFC 9449 §11.1: a short window bounds pre-made proofs)... */
export const MAX_AGE_S = 60;
/** ...and with this much clock difference between client and provider either way. */
export const SKEW_S = 10;
/** A jti longer than this is not a proof's random identifier but an attempt to fill the store. */
const MAX_JTI_LENGTH = 256;

/** One request's DPoP proof as the checks need it. */
export interface ProofRequest {
  /** Every `DPoP` header value received (`req.headersDistinct.dpop`): exactly one is a proof. */
  readonly headers: readonly string[] | undefined;
  readonly method: string;
  /** The URL the request was made to, as its `htu` must name it (query and fragment are ignored). */
  readonly url: string;
  /** At a resource, the access token presented with the proof: `ath` must be its hash. */
  readonly accessToken?: string;
  readonly site: ProofSite;
  /** The algorithms the sender may sign with (a FAPI 2.0 client's are fewer); omitted: every one of DPOP_ALGORITHMS. */
  readonly algorithms?: readonly DpopAlgorithm[];
}

/** What a valid proof proves: possession of the key with this RFC 7638 thumbprint. */
export interface VerifiedProof {
  readonly jkt: string;
}

export interface DpopProofsOptions {
  readonly replay: ProofReplay;
  readonly nonces: DpopNonces;
  /** provider.yaml dpop.require_nonce. */
  readonly requireNonce: boolean;
  readonly clock: Clock;
}

/**
 * DPoP proof verification (RFC 9449 §4.3), for the token endpoint, userinfo and requireBearer alike.
 * One signature verification per proof (with the key embedded in it) and one store round trip (the
 * jti claim, last, so a proof that fails a check claims nothing).
 */
export class DpopProofs {
  readonly #options: DpopProofsOptions;
  readonly #keys = new ProofKeys();

  constructor(options: DpopProofsOptions) {
    this.#options = options;
  }

  /** Whether proofs must carry a server nonce: the endpoints then hand one out on every answer. */
  get requireNonce(): boolean {
    return this.#options.requireNonce;
  }

  /** The nonce to send in `DPoP-Nonce`, when nonces are required. */
  nonce(): string | undefined {
    return this.#options.requireNonce ? this.#options.nonces.current() : undefined;
  }

  /** The request's proof, verified; undefined when it has none (whether that is allowed is the caller's rule). */
  async verify(request: ProofRequest): Promise<VerifiedProof | undefined> {
    const { headers, site } = request;
    if (headers === undefined || headers.length === 0) return undefined;
    // §4.3 check 1: exactly one DPoP header, of one value.
    if (headers.length > 1) throw invalidDpopProof("send exactly one DPoP header", site);
    const { payload, jkt } = await this.#signedProof(headers[0]!, site, request.algorithms ?? DPOP_ALGORITHMS);
    const iat = this.#checkClaims(payload, request);
    if (this.#options.requireNonce) {
      const nonce = payload.nonce;
      if (typeof nonce !== "string" || !this.#options.nonces.accepts(nonce)) throw useDpopNonce(this.#options.nonces.current(), site);
    }
    // §11.1: single use within the window, on every node; kept until the proof's iat leaves the window.
    const ttlMs = (iat + MAX_AGE_S + SKEW_S + 1) * 1000 - this.#options.clock();
    if (!(await this.#options.replay.claim(jkt, payload.jti as string, ttlMs)))
      throw invalidDpopProof("the DPoP proof has been used before", site);
    return { jkt };
  }

  /** §4.3 checks 2–8: a JWT of typ dpop+jwt, an allowed asymmetric alg, a public embedded key that verifies the signature. */
  async #signedProof(
    proof: string,
    site: ProofSite,
    algorithms: readonly DpopAlgorithm[],
  ): Promise<{ payload: Record<string, unknown>; jkt: string }> {
    let jkt: string | undefined;
    // The key is the one the header embeds (§4.2 jwk), public, imported once per process (proof-keys.ts).
    const embedded = (header: Record<string, unknown>) => {
      const jwk = header.jwk;
      if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw invalidDpopProof("the DPoP proof must embed its key", site);
      if (privateJwkMember(jwk) !== undefined) throw invalidDpopProof("the DPoP proof's key must be public", site);
      const proofKey = this.#keys.keyOf(jwk as Record<string, unknown>);
      jkt = proofKey.jkt;
      return proofKey;
    };
    try {
      const { header, payload } = isSigningAlg(peekAlg(proof))
        ? this.#verifiedSync(proof, embedded)
        : await this.#verifiedByJose(proof, embedded);
      if (!isDpopType(header.typ)) throw invalidDpopProof("the DPoP proof's typ must be dpop+jwt", site);
      // An algorithm the provider takes but this sender may not use: named, so the client's developer knows which to switch to.
      if (!algorithms.includes(header.alg as DpopAlgorithm))
        throw invalidDpopProof(`this client's DPoP proofs must be signed with ${algorithms.join(", ")}`, site);
      return { payload, jkt: jkt! };
    } catch (err) {
      if (err instanceof OAuthError) throw err;
      // The verifier's own text may quote the header; the caller learns which family of check failed, no more.
      throw invalidDpopProof("the DPoP proof is malformed, not signed by its key or uses an unsupported algorithm", site);
    }
  }

  /**
   * RS256, PS256 and ES256 proofs: verified synchronously with node:crypto by the verifier the provider
   * checks its own tokens with (jws-verifier.ts, held to jose by a property test). jose's WebCrypto path
   * costs a thread-pool job per proof, about as much CPU again as the signature check itself.
   */
  #verifiedSync(proof: string, embedded: (header: Record<string, unknown>) => ProofKey): VerifiedParts {
    const { header, claims } = verifyJwt(proof, (header) => {
      const { key, algorithms } = embedded(header);
      const alg = header.alg as SigningAlg;
      // The key must be one that signs the header's alg (an EC key on P-256 for ES256; RSA, at least 2048 bits, for RS256 and PS256).
      if (!algorithms.includes(alg)) return undefined;
      return verificationKeyOf(alg, key);
    });
    checkTimeClaims(claims, epochSeconds(this.#options.clock));
    return { header, payload: claims };
  }

  /** EdDSA proofs, through jose, which also checks that the key fits the alg. */
  async #verifiedByJose(proof: string, embedded: (header: Record<string, unknown>) => ProofKey): Promise<VerifiedParts> {
    const { payload, protectedHeader } = await jwtVerify(proof, (header) => embedded(header as Record<string, unknown>).key, {
      algorithms: [...DPOP_ALGORITHMS],
      // The window is checked in #checkClaims, against iat; here only jose's rules for exp and nbf, if a proof has them.
      currentDate: new Date(this.#options.clock()),
    });
    return { header: protectedHeader as Record<string, unknown>, payload: payload as Record<string, unknown> };
  }

  /** §4.3 checks 4, 9–12: jti, htm, htu, iat within the window, ath over the presented token. The iat. */
  #checkClaims(payload: Record<string, unknown>, request: ProofRequest): number {
    const { site } = request;
    const { jti, htm, htu, iat, ath } = payload;
    if (typeof jti !== "string" || jti.length === 0 || jti.length > MAX_JTI_LENGTH)
      throw invalidDpopProof("the DPoP proof needs a jti", site);
    if (htm !== request.method) throw invalidDpopProof("the DPoP proof's htm is not this request's method", site);
    if (typeof htu !== "string" || !sameTarget(htu, request.url))
      throw invalidDpopProof("the DPoP proof's htu is not this request's URL", site);
    if (typeof iat !== "number" || !Number.isFinite(iat)) throw invalidDpopProof("the DPoP proof needs an iat", site);
    const now = epochSeconds(this.#options.clock);
    if (iat < now - MAX_AGE_S - SKEW_S || iat > now + SKEW_S)
      throw invalidDpopProof("the DPoP proof's iat is outside the accepted window", site);
    if (request.accessToken !== undefined && ath !== accessTokenHash(request.accessToken))
      throw invalidDpopProof("the DPoP proof's ath does not match the access token", site);
    return iat;
  }
}

interface VerifiedParts {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** The header's alg, read before choosing a verifier; either verifier checks the whole header again. */
function peekAlg(proof: string): unknown {
  try {
    return JSON.parse(Buffer.from(proof.slice(0, proof.indexOf(".")), "base64url").toString("utf8")).alg;
  } catch {
    return undefined;
  }
}

/** `typ` as jose compares it: without an `application/` prefix, case aside. */
function isDpopType(typ: unknown): boolean {
  return typeof typ === "string" && typ.toLowerCase().replace(/^application\//, "") === "dpop+jwt";
}

/** What jwtVerify checks of `exp` and `nbf` when a proof carries them (they are optional in a proof): never past, never ahead. */
function checkTimeClaims(claims: Record<string, unknown>, now: number): void {
  const { exp, nbf } = claims;
  if (exp !== undefined && (typeof exp !== "number" || exp <= now)) throw new TypeError("exp");
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > now)) throw new TypeError("nbf");
}
