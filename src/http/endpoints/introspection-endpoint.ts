import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import { invalidRequest, OAuthError } from "../../errors/oauth-error.ts";
import { authenticateApiResource } from "../../oauth/authenticate-api-resource.ts";
import { parseScope, formatScope } from "../../scopes/scope.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { steps } from "../../http-kit/steps.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { paths } from "../../http-kit/paths.ts";
import { readFormBody } from "../../http-kit/params.ts";
import { writeJson } from "../../http-kit/write-response.ts";

interface IntrospectionStart {
  ex: Exchange;
  /** The policy the request runs on, read once (src/infra/scope.ts). */
  policy: PolicySnapshot;
}

const INACTIVE = JSON.stringify({ active: false });

/**
 * POST /connect/introspect (RFC 7662). The caller is an API resource with its name and ApiSecret;
 * a token is active only for the resource whose scopes it carries, and the answer shows only those scopes.
 */
export function introspectionEndpoint(infra: Infra): ProtocolRoute {
  const limits = { maxParameterLength: infra.settings.security.max_parameter_length };
  const table = steps<IntrospectionStart>()
    // The body is a form with each parameter at most once.
    .step((ctx) => ({ params: readFormBody(ctx.ex, limits) }))
    // The caller is an API resource that has an ApiSecret and presents it, or has keys and presents a private_key_jwt assertion.
    .step(async (ctx) => ({
      resource: await authenticateApiResource(
        { infra, policy: ctx.policy },
        { authorization: ctx.ex.req.headers.authorization, params: ctx.params },
      ),
    }))
    // The token is present; an unreadable, expired or revoked one is simply inactive.
    .step(async (ctx) => {
      const token = ctx.params.get("token");
      if (token === undefined) throw invalidRequest("token is required");
      try {
        return { claims: await infra.accessTokenVerifier.verify(token) };
      } catch (err) {
        if (err instanceof OAuthError && err.error === "invalid_token") return writeJson(ctx.ex.res, 200, INACTIVE);
        throw err;
      }
    })
    // The token carries scopes of this resource, else it is not this resource's business; a user-bound
    // token (sub is not its client) is active only while its user is (removed or disabled users are not).
    .step(async (ctx) => {
      const { claims, resource } = ctx;
      if (claims.sub !== claims.client_id && !(await ctx.policy.users.isActive(claims.sub))) return writeJson(ctx.ex.res, 200, INACTIVE);
      const ownScopes = parseScope(claims.scope).filter((s) => resource.scopes.has(s));
      if (ownScopes.length === 0) return writeJson(ctx.ex.res, 200, INACTIVE);
      // Only this resource is named as the audience: the others a token serves are not its business.
      const { iss, sub, exp, iat, jti, client_id, auth_time, amr, acr, cnf } = claims;
      const aud = resource.name;
      writeJson(ctx.ex.res, 200, {
        active: true,
        // RFC 9449 §6.2: a bound token is a DPoP token, and its cnf tells the resource which key must prove it.
        token_type: cnf === undefined ? "Bearer" : "DPoP",
        scope: formatScope(ownScopes),
        client_id,
        sub,
        iss,
        aud,
        exp,
        iat,
        jti,
        ...(auth_time !== undefined && { auth_time }),
        ...(amr !== undefined && { amr }),
        ...(acr !== undefined && { acr }),
        ...(cnf !== undefined && { cnf }),
      });
    });
  return {
    path: paths.introspection,
    methods: ["POST"],
    readsBody: true,
    handle: (ex) => table.run({ ex, policy: takeScope(infra).policy }),
  };
}
