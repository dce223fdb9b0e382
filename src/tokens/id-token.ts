import { hash } from "node:crypto";
import type { Clock } from "../time/clock.ts";
import { epochSeconds } from "../time/clock.ts";
import type { JwsSigner } from "./jws-signer.ts";
import type { SigningAlg } from "../crypto/signing-alg.ts";

/** What an ID token says about one authentication (OIDC Core §2, §3.1.3.6). */
export interface IdTokenRequest {
  sub: string;
  clientId: string;
  /** The authorize request's nonce; absent on refresh (OIDC Core §12.2). */
  nonce?: string;
  /** Epoch seconds of the authentication. */
  authTime: number;
  amr: readonly string[];
  acr: string;
  sid?: string;
  /** The access token issued with this ID token: its at_hash is included. */
  accessToken?: string;
  /** Seconds. */
  lifetime: number;
  /** Extra claims a login type or acr value adds (chnl, gps, faceid, custom_scan, ...). */
  claims?: Record<string, unknown>;
  /** The client's id_token_signed_response_alg (OIDC Registration §2); RS256 when absent. */
  alg?: SigningAlg;
}

export const ID_TOKEN_TYPE = "JWT";

// Claims the protocol defines: only this issuer sets them, never an extra claim (even when it leaves one out).
const PROTOCOL_CLAIMS = new Set([
  "iss",
  "sub",
  "aud",
  "exp",
  "iat",
  "nbf",
  "jti",
  "auth_time",
  "nonce",
  "amr",
  "acr",
  "azp",
  "sid",
  "at_hash",
  "c_hash",
]);

/** Issues ID tokens signed with the provider's current key of the client's algorithm (RS256 unless it chose another). */
export class IdTokenIssuer {
  private readonly signer: JwsSigner;
  private readonly issuer: string;
  private readonly clock: Clock;

  constructor(signer: JwsSigner, issuer: string, clock: Clock) {
    this.signer = signer;
    this.issuer = issuer;
    this.clock = clock;
  }

  issue(request: IdTokenRequest): string {
    const iat = epochSeconds(this.clock);
    // The extra claims first, the protocol's after them: none of the extras can replace one.
    const payload = extraClaims(request.claims);
    payload.iss = this.issuer;
    payload.sub = request.sub;
    payload.aud = request.clientId;
    payload.exp = iat + request.lifetime;
    payload.iat = iat;
    payload.auth_time = request.authTime;
    payload.amr = request.amr;
    payload.acr = request.acr;
    if (request.nonce !== undefined) payload.nonce = request.nonce;
    if (request.sid !== undefined) payload.sid = request.sid;
    if (request.accessToken !== undefined) payload.at_hash = atHash(request.accessToken);
    return this.signer.sign(payload, ID_TOKEN_TYPE, request.alg);
  }
}

/** OIDC Core §3.1.3.6: base64url of the left half of the SHA-256 (the hash of RS256, PS256 and ES256 alike) of the token's ASCII. */
export function atHash(accessToken: string): string {
  // A JWS is ASCII, so its UTF-8 (what hash() reads) is its ASCII.
  const digest = hash("sha256", accessToken, "buffer");
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

/** The extra claims that are not the protocol's, in a new object (a loop: this runs for every ID token). */
function extraClaims(claims: Record<string, unknown> | undefined): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (claims !== undefined) for (const name in claims) if (!PROTOCOL_CLAIMS.has(name)) extra[name] = claims[name];
  return extra;
}
