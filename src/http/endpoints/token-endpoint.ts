import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { GrantType } from "../../oauth/client-registry.ts";
import { invalidRequest, unauthorizedClient, unsupportedGrantType } from "../../errors/oauth-error.ts";
import { authenticateClient } from "../../oauth/authenticate-client.ts";
import { grantHandlers } from "../grants/grant-handlers.ts";
import { steps } from "../../http-kit/steps.ts";
import { readFormBody } from "../../http-kit/params.ts";
import { writeJson } from "../../http-kit/write-response.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { paths } from "../../http-kit/paths.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { tokenRequestProof } from "../../oauth/dpop/token-request-proof.ts";

interface TokenStart {
  ex: Exchange;
  /** The policy this request runs on, read once: a reload in between changes nothing for it. */
  policy: PolicySnapshot;
}

/** POST /connect/token (RFC 6749 §3.2). */
export function tokenEndpoint(infra: Infra): ProtocolRoute {
  const limits = { maxParameterLength: infra.settings.security.max_parameter_length };
  // The URL a proof's htu names: the issuer's token endpoint, whatever Host header a proxy passed on.
  const tokenUrl = infra.issuer + paths.token;
  const table = steps<TokenStart>()
    // The body is a form with each parameter at most once.
    .step((ctx) => ({ params: readFormBody(ctx.ex, limits) }))
    // The client proves who it is (Basic, client_secret_post or private_key_jwt, one of them; src/oauth/authenticate-client.ts).
    .step(async (ctx) => ({
      client: await authenticateClient(
        { infra, policy: ctx.policy },
        { authorization: ctx.ex.req.headers.authorization, params: ctx.params },
      ),
    }))
    // The grant type is one we serve, and one this client may use.
    .step((ctx) => {
      const grantType = ctx.params.get("grant_type");
      if (grantType === undefined) throw invalidRequest("grant_type is required");
      const grant = Object.hasOwn(grantHandlers, grantType) ? grantHandlers[grantType as GrantType] : undefined;
      if (!grant) throw unsupportedGrantType(`grant_type '${grantType.slice(0, 64)}' is not supported`);
      if (!ctx.client.grantTypes.has(grantType as GrantType)) throw unauthorizedClient(`the client may not use ${grantType}`);
      return { grant };
    })
    // A DPoP proof, when sent, is valid (RFC 9449 §4.3); a client with require_dpop must send one.
    .step(async (ctx) => ({ proof: await tokenRequestProof(infra.dpop, ctx.ex.req, ctx.client, tokenUrl) }))
    // The grant checks its own parameters and issues the tokens (bound to the proof's key).
    .step(async (ctx) => {
      const response = await ctx.grant({ infra, policy: ctx.policy, client: ctx.client, params: ctx.params, proof: ctx.proof });
      // §8: with nonces required, every answer hands out the current one, so the client's next proof has it.
      const nonce = infra.dpop.nonce();
      writeJson(ctx.ex.res, 200, response, nonce === undefined ? {} : { headers: { "DPoP-Nonce": nonce } });
    });
  return {
    path: paths.token,
    methods: ["POST"],
    readsBody: true,
    handle: (ex) => table.run({ ex, policy: takeScope(infra).policy }),
  };
}
