import type { GrantType } from "../../oauth/client-registry.ts";
import type { GrantHandler } from "./grant-handler.ts";
import { clientCredentialsGrant } from "./client-credentials-grant.ts";
import { passwordGrant } from "./password-grant.ts";
import { authorizationCodeGrant } from "./authorization-code-grant.ts";
import { refreshTokenGrant } from "./refresh-token-grant.ts";

/** The grant types the token endpoint serves. Discovery advertises exactly these keys. */
export const grantHandlers: Partial<Record<GrantType, GrantHandler>> = {
  authorization_code: authorizationCodeGrant,
  client_credentials: clientCredentialsGrant,
  password: passwordGrant,
  refresh_token: refreshTokenGrant,
};
