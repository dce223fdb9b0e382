import { randomUUID } from "node:crypto";
import type { Clock } from "../time/clock.ts";
import { epochSeconds } from "../time/clock.ts";
import type { JwsSigner } from "./jws-signer.ts";
import type { SigningAlg } from "../crypto/signing-alg.ts";

/** OpenID Connect Back-Channel Logout 1.0 §2.4. */
export const LOGOUT_TOKEN_TYPE = "logout+jwt";
export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** Seconds a logout token is valid: long enough for delivery and its retries, short against replay. */
export const LOGOUT_TOKEN_LIFETIME = 120;

export interface LogoutTokenRequest {
  clientId: string;
  sub: string;
  /** Included when the client registered backchannel_logout_session_required. */
  sid?: string;
  /** The client's ID token algorithm: a logout token is verified as its ID tokens are (Back-Channel Logout §2.6). */
  alg?: SigningAlg;
}

export interface LogoutTokenClaims {
  iss: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  sub: string;
  sid?: string;
  events: { [BACKCHANNEL_LOGOUT_EVENT]: Record<string, never> };
}

/**
 * Issues logout tokens: signed as the client's ID tokens are (RS256 unless it chose another), typ logout+jwt, iss, aud (the one client), iat, exp, jti, sub, sid when
 * asked, and the back-channel logout event. Never a nonce (§2.4: its presence marks a forged ID token).
 */
export class LogoutTokenIssuer {
  private readonly signer: JwsSigner;
  private readonly issuer: string;
  private readonly clock: Clock;

  constructor(signer: JwsSigner, issuer: string, clock: Clock) {
    this.signer = signer;
    this.issuer = issuer;
    this.clock = clock;
  }

  issue(request: LogoutTokenRequest): string {
    const iat = epochSeconds(this.clock);
    const claims: LogoutTokenClaims = {
      iss: this.issuer,
      aud: request.clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_LIFETIME,
      jti: randomUUID(),
      sub: request.sub,
      ...(request.sid !== undefined && { sid: request.sid }),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    };
    return this.signer.sign(claims, LOGOUT_TOKEN_TYPE, request.alg);
  }
}
