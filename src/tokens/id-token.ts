import { hash } from "node:crypto";
import type { Clock } from "../time/clock.ts";
import { epochSeconds } from "../time/clock.ts";
import type { JwsSigner } from "./jws-signer.ts";

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
}

export const ID_TOKEN_TYPE = "JWT";

// Claims the protocol defines: only this issuer sets them, never an extra claim (even when it leaves one out).
const PROTOCOL_CLAIMS = new Set(["iss", "sub", "aud", "exp", "iat", "nbf", "jti", "auth_time", "nonce", "amr", "acr", "azp", "sid", "at_hash", "c_hash"]);

/** Issues RS256 ID tokens signed with the provider's current key. */
export class IdTokenIssuer {
  constructor(
    private readonly signer: JwsSigner,
    private readonly issuer: string,
    private readonly clock: Clock,
  ) {}

  issue(request: IdTokenRequest): string {
    const iat = epochSeconds(this.clock);
    const payload: Record<string, unknown> = {
      ...extraClaims(request.claims),
      iss: this.issuer,
      sub: request.sub,
      aud: request.clientId,
      exp: iat + request.lifetime,
      iat,
      auth_time: request.authTime,
      amr: request.amr,
      acr: request.acr,
    };
    if (request.nonce !== undefined) payload.nonce = request.nonce;
    if (request.sid !== undefined) payload.sid = request.sid;
    if (request.accessToken !== undefined) payload.at_hash = atHash(request.accessToken);
    return this.signer.sign(payload, ID_TOKEN_TYPE);
  }
}

/** OIDC Core §3.1.3.6: base64url of the left half of the SHA-256 (RS256's hash) of the token's ASCII. */
export function atHash(accessToken: string): string {
  // A JWS is ASCII, so its UTF-8 (what hash() reads) is its ASCII.
  const digest = hash("sha256", accessToken, "buffer");
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

function extraClaims(claims: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims ?? {}).filter(([name]) => !PROTOCOL_CLAIMS.has(name)));
}
