import { formatScope } from "../../scopes/scope.ts";
import { clientCredentialsScope } from "./client-credentials-scope.ts";
import { type GrantHandler, tokenTypeFor } from "./grant-handler.ts";
import { recordTokenIssued } from "../../audit/record-token-issued.ts";

/** client_credentials: an access token for the client itself; no ID token, no refresh token. */
export const clientCredentialsGrant: GrantHandler = async ({ infra, policy, client, params, proof }) => {
  const scopes = clientCredentialsScope(params.get("scope"), client, policy.scopes);
  const lifetime = client.lifetimes.clientCredentialsAccessToken;
  const { token, claims } = await infra.accessTokens.issueAs(client.accessTokenFormat, {
    sub: client.id,
    clientId: client.id,
    scopes,
    resources: policy.scopes,
    lifetime,
    jkt: proof?.jkt,
    alg: client.accessTokenAlg,
  });
  const response = { access_token: token, token_type: tokenTypeFor(proof?.jkt), expires_in: lifetime, scope: formatScope(scopes) };
  return recordTokenIssued(
    infra.audit,
    "client_credentials",
    { client_id: client.id, sub: client.id, jti: claims.jti, dpop_jkt: proof?.jkt },
    response,
  );
};
