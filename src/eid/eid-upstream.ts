import type { LoginFile } from "../config/types.generated.ts";

/** One upstream eID identity provider as login.yaml declares it (defaults filled, secret resolved). */
export type EidUpstream = NonNullable<LoginFile["eid_upstreams"]>[string];

/** What `begin` hands back to keep server-side (in the interaction) until the callback: never sent to the browser. */
export interface EidPending {
  /** The upstream's id under eid_upstreams. */
  upstream: string;
  /** The redirect URI sent upstream: the token request repeats it, and the callback is read against it. */
  redirectUri: string;
  state: string;
  nonce: string;
  /** PKCE S256 verifier. */
  codeVerifier: string;
  /** max_age sent upstream (seconds), checked against the ID token's auth_time. */
  maxAge?: number;
  /** The acr values (declared here) the login asked the upstream to perform, and whether one of them is a must. */
  acr?: { asked: string[]; essential: boolean };
}

/** Request options a broker passes upstream (from the client's own authorize request). */
export interface EidBeginOptions {
  /** `login`: the user must authenticate again at the upstream (the client asked for prompt=login or force_login). */
  prompt?: "login";
  /** The client's max_age, so an older upstream session is not taken for a fresh login. */
  maxAge?: number;
  /** The page language, as OIDC ui_locales. */
  uiLocales?: string;
  /** Declared acr values (login.yaml `acr_values`) to ask of the upstream: sent as what its `acr.forward` maps them to. */
  acr?: string[];
  /**
   * The client requires one of `acr` (an essential acr, OIDC Core §5.5.1.1): an upstream that performed
   * less fails the login with unmet_authentication_requirements. Otherwise the login stands at the lower acr.
   */
  acrEssential?: boolean;
}
