import { sign } from "node:crypto";
import type { KeySet } from "./key-set.ts";

/**
 * Signs compact RS256 JWS with node:crypto directly. jose's SignJWT goes through WebCrypto and
 * measured ~25% slower per signature on this hardware, which is most of the token endpoint's
 * budget (see docs/performance.md). Our own access tokens are verified with node:crypto too
 * (jws-verifier.ts, held to jose's behaviour by a property test); everything else is verified with
 * jose, and the tests verify every kind of token we sign with jose.
 */
export class JwsSigner {
  private readonly keys: () => KeySet;
  private readonly headerCache = new Map<string, string>();

  constructor(keys: () => KeySet) {
    this.keys = keys;
  }

  sign(payload: object, typ: string): string {
    const key = this.keys().signing;
    const header = this.encodedHeader(key.kid, typ);
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const signingInput = `${header}.${body}`;
    const signature = sign("sha256", Buffer.from(signingInput), key.privateKey).toString("base64url");
    return `${signingInput}.${signature}`;
  }

  private encodedHeader(kid: string, typ: string): string {
    const cacheKey = `${kid}\u0000${typ}`;
    let header = this.headerCache.get(cacheKey);
    if (header === undefined) {
      header = Buffer.from(JSON.stringify({ alg: "RS256", kid, typ })).toString("base64url");
      this.headerCache.set(cacheKey, header);
    }
    return header;
  }
}
