import type { Infra } from "../../infra/infra.ts";
import type { Client } from "../../oauth/client-registry.ts";
import type { Params } from "../../http-kit/params.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import type { VerifiedProof } from "../../oauth/dpop/dpop-proofs.ts";

export interface GrantContext {
  infra: Infra;
  /** The policy the token request runs on, read once: its client was authenticated against it (src/reload/). */
  policy: PolicySnapshot;
  client: Client;
  params: Params;
  /** The request's DPoP proof (RFC 9449 §5), verified; the access token is bound to its key. */
  proof?: VerifiedProof;
}

/** The RFC 6749 §5.1 success body. */
export interface TokenResponse {
  access_token: string;
  /** DPoP when the access token is bound to a proof key (RFC 9449 §5). */
  token_type: "Bearer" | "DPoP";
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** The token_type of an access token bound to `jkt` (RFC 9449 §5), or of a bearer token. */
export const tokenTypeFor = (jkt: string | undefined): TokenResponse["token_type"] => (jkt === undefined ? "Bearer" : "DPoP");

/** One grant type: checks its own parameters and returns the tokens, or throws an OAuthError. */
export type GrantHandler = (ctx: GrantContext) => Promise<TokenResponse>;
