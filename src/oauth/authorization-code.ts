import type { Authentication } from "./authorization-request.ts";
import type { RequestedClaimNames } from "./requested-claim-names.ts";

/**
 * What an authorization code stands for (SPEC "Authorization code"): everything the token endpoint must
 * check the redemption against, and the authentication facts the ID token reports. Stored under the
 * SHA-256 of the code, taken atomically on redemption.
 */
export interface AuthorizationCodeGrant extends Authentication {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: "S256" | "plain";
  /** The SSO session's sid (absent for login types that keep no session). */
  sid?: string;
  /** login_type of the authorize request: the token request must repeat it (Mfa, MyVendor, eID). */
  loginType?: string;
  /** Extra ID-token claims a login type or acr value adds (chnl, gps, faceid, custom_scan, ...). */
  idTokenClaims?: Record<string, unknown>;
  /** Extra claims of the access token issued on this code only (an extension's, e.g. the custom login's custom_scan_sid). */
  accessTokenClaims?: Record<string, unknown>;
  /** The claims the authorize request's `claims` parameter added (releasableClaims), for userinfo and the ID token. */
  requestedClaims?: RequestedClaimNames;
  /** RFC 9449 §10: the authorize request's dpop_jkt; the code is redeemed only with a proof by that key. */
  dpopJkt?: string;
}
