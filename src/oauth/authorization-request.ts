import type { LoginPlan } from "../login-policy/plan-login.ts";
import type { RequestedClaims } from "./claims-request.ts";

/**
 * A validated authorization request (OIDC Core §3.1.2.1 plus the spec's extensions), as the authorize
 * endpoint hands it to the login flow and the code issuer. Plain data: it is stored with the interaction.
 */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  responseMode: ResponseMode;
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: "S256" | "plain";
  /** OIDC prompt values that were sent (none, login, force_login). */
  prompt: string[];
  /** Seconds; 0 means "authenticate now". */
  maxAge?: number;
  loginHint?: string;
  /** The UI language asked for (`lang`, else ui_locales); resolved against Accept-Language at render time. */
  lang?: string;
  acrValues?: string[];
  /** The `claims` parameter (OIDC Core §5.5) as read: what it asks the userinfo answer and the ID token to carry, and of acr. */
  claims?: RequestedClaims;
  /** The login type as named (returned to redirect_uri with the code, repeated at the token endpoint where the type says so). */
  loginType?: string;
  /** What the login must do and what the tokens carry (src/login-policy); absent in interactions stored before plans existed: the default flow. */
  plan?: LoginPlan;
  /** The subject of a valid id_token_hint: prompt=none must keep this user. */
  hintSub?: string;
  /** RFC 9449 §10 dpop_jkt: the thumbprint of the DPoP key the code is bound to. */
  dpopJkt?: string;
  /** Served in an iframe (/connect/iframe_authz): the response finishes in the top window. */
  framed: boolean;
  /** Started by a pushed authorization request (RFC 9126): nothing may offer it again as a plain, editable request. */
  pushed?: boolean;
}

export type ResponseMode = "query" | "fragment" | "form_post";
export const RESPONSE_MODES: readonly ResponseMode[] = ["query", "fragment", "form_post"];

/** What a completed login proves about the user; becomes the SSO session and the code's claims. */
export interface Authentication {
  sub: string;
  /** Epoch seconds of the authentication. */
  authTime: number;
  amr: string[];
  acr: string;
  /** The factor methods passed, by id (a step-up compares them with what a request needs); absent in sessions from before. */
  methods?: string[];
  /** What the methods reported beyond the user, by method id (e.g. face: { faceid }), for claims. */
  evidence?: Record<string, Record<string, unknown>>;
  /** The audit trail's id of the login (login.succeeded), so that the session it starts names it. */
  loginId?: string;
}
