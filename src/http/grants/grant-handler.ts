import type { Infra } from "../../infra/infra.ts";
import type { Client } from "../../oauth/client-registry.ts";
import type { Params } from "../../http-kit/params.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";

export interface GrantContext {
  infra: Infra;
  /** The policy the token request runs on, read once: its client was authenticated against it (src/reload/). */
  policy: PolicySnapshot;
  client: Client;
  params: Params;
}

/** The RFC 6749 §5.1 success body. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** One grant type: checks its own parameters and returns the tokens, or throws an OAuthError. */
export type GrantHandler = (ctx: GrantContext) => Promise<TokenResponse>;
