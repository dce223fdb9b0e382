import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { invalidRequest, OAuthError } from "../../errors/oauth-error.ts";
import { authenticateClient } from "../../oauth/authenticate-client.ts";
import { looksLikeReferenceToken } from "../../tokens/reference-tokens.ts";
import { writeEmpty } from "../../http-kit/write-response.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { steps } from "../../http-kit/steps.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { paths } from "../../http-kit/paths.ts";
import { readFormBody } from "../../http-kit/params.ts";

interface RevocationStart {
  ex: Exchange;
  /** The policy the request runs on, read once (src/infra/scope.ts). */
  policy: PolicySnapshot;
}

/**
 * POST /connect/revocation (RFC 7009). Refresh tokens revoke their whole family; a reference access
 * token's record is deleted, a JWT access token goes on a denylist by jti until it expires. A token of
 * another client, or garbage, is left alone — the answer is 200 either way, so the endpoint tells
 * nobody whether a token exists.
 */
export function revocationEndpoint(infra: Infra): ProtocolRoute {
  const limits = { maxParameterLength: infra.settings.security.max_parameter_length };

  async function revokeAccessToken(token: string, client: Client): Promise<boolean> {
    try {
      const claims = await infra.accessTokenVerifier.verify(token);
      if (claims.client_id !== client.id) return true; // found, but not this client's: nothing to do
      // verify() has just read the record, so a handle of this shape is one of ours.
      if (looksLikeReferenceToken(token)) await infra.referenceTokens.revoke(token);
      else await infra.accessTokenDenylist.revoke(claims.jti, claims.exp);
      infra.audit.record({ type: "token.revoked", token_type: "access_token", client_id: client.id, jti: claims.jti, sub: claims.sub });
      return true;
    } catch (err) {
      if (err instanceof OAuthError) return false; // not a live access token of ours
      throw err;
    }
  }

  const table = steps<RevocationStart>()
    // The body is a form with each parameter at most once.
    .step((ctx) => ({ params: readFormBody(ctx.ex, limits) }))
    // The client authenticates (the spec uses Basic; client_secret_post and private_key_jwt are accepted as at the token endpoint).
    .step(async (ctx) => ({
      client: await authenticateClient(
        { infra, policy: ctx.policy },
        { authorization: ctx.ex.req.headers.authorization, params: ctx.params },
      ),
    }))
    // Revoke what the token is, trying the hinted type first; unknown hints are ignored (RFC 7009 §2.1).
    .step(async (ctx) => {
      const { params, client } = ctx;
      const token = params.get("token");
      if (token === undefined) throw invalidRequest("token is required");
      const asRefresh = () => infra.refreshTokens.revoke(token, client.id);
      const asAccess = () => revokeAccessToken(token, client);
      const order = params.get("token_type_hint") === "refresh_token" ? [asRefresh, asAccess] : [asAccess, asRefresh];
      for (const attempt of order) if (await attempt()) break;
      writeEmpty(ctx.ex.res);
    });
  return {
    path: paths.revocation,
    methods: ["POST"],
    readsBody: true,
    handle: (ex) => table.run({ ex, policy: takeScope(infra).policy }),
  };
}
