import { signJws } from "../crypto/jws-signature.ts";
import { DEFAULT_SIGNING_ALG, type SigningAlg } from "../crypto/signing-alg.ts";
import type { KeySet } from "./key-set.ts";

/**
 * Signs compact JWS (RS256, PS256 or ES256: the algorithm of the key that signs) with node:crypto
 * directly. jose's SignJWT goes through WebCrypto and measured ~25% slower per signature on this
 * hardware, which is most of the token endpoint's budget (see docs/performance.md). Our own access
 * tokens, DPoP proofs and client assertions are verified with node:crypto too (jws-verifier.ts, held to
 * jose's behaviour by property tests); everything else is verified with jose, and the tests verify every
 * kind of token we sign with jose.
 */
export class JwsSigner {
  private readonly keys: () => KeySet;
  private readonly headerCache = new Map<string, string>();

  constructor(keys: () => KeySet) {
    this.keys = keys;
  }

  /** `alg`: the client's choice (clients.yaml); RS256 when it made none. */
  sign(payload: object, typ: string, alg: SigningAlg = DEFAULT_SIGNING_ALG): string {
    const key = this.keys().signingKey(alg);
    const header = this.encodedHeader(key.alg, key.kid, typ);
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const signingInput = `${header}.${body}`;
    const signature = signJws(key.alg, key.input, Buffer.from(signingInput)).toString("base64url");
    return `${signingInput}.${signature}`;
  }

  private encodedHeader(alg: SigningAlg, kid: string, typ: string): string {
    const cacheKey = `${kid}\u0000${typ}`;
    let header = this.headerCache.get(cacheKey);
    if (header === undefined) {
      header = Buffer.from(JSON.stringify({ alg, kid, typ })).toString("base64url");
      this.headerCache.set(cacheKey, header);
    }
    return header;
  }
}
