import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import { invalidRequest, oauthError } from "../../errors/oauth-error.ts";
import { clientAddress } from "../../security/client-address.ts";
import { authenticateClient } from "../../oauth/authenticate-client.ts";
import { IdTokenHintVerifier } from "../../oauth/id-token-hint.ts";
import { steps } from "../../http-kit/steps.ts";
import { formBody } from "../../http-kit/params.ts";
import { writeJson } from "../../http-kit/write-response.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { paths } from "../../http-kit/paths.ts";
import { parseDuration } from "../../time/duration.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { checkAuthorizeRequest, checkClientAndRedirect, readAuthorizeParams } from "../authorize/authorize-params.ts";
import { planAuthorization } from "../authorize/login-plan-step.ts";
import { proofThumbprintIfPresent } from "../../oauth/dpop/proof-thumbprint.ts";

interface PushStart {
  ex: Exchange;
  /** The policy this request runs on, read once: a reload in between changes nothing for it. */
  policy: PolicySnapshot;
}

/** Parameters that authenticate the client at this endpoint, not part of the authorization request: never stored. */
const CLIENT_AUTHENTICATION = new Set(["client_secret", "client_assertion", "client_assertion_type"]);

/**
 * POST /connect/par (RFC 9126 §2): a client pushes its authorization request, authenticated as at the
 * token endpoint, and gets a short-lived, single-use request_uri to send the browser to authorize with.
 * The parameters are read and checked by authorize's own code (authorize-params.ts, the login plan), so
 * a parameter authorize learns is learnt here too; what authorize would redirect is a JSON 400 here
 * (§2.3). What is stored is the parameters as pushed: authorize parses them again as its request.
 */
export function pushedAuthorizationRequestEndpoint(infra: Infra): ProtocolRoute {
  const maxLength = infra.settings.security.max_parameter_length;
  const trustProxy = infra.settings.listen.trust_proxy;
  const ttlSeconds = parseDuration(infra.settings.lifetimes.pushed_authorization_request);
  const pushUrl = infra.issuer + paths.pushedAuthorizationRequest;
  const hints = new IdTokenHintVerifier(() => infra.keys.keys, infra.issuer);
  const table = steps<PushStart>()
    // The body is a form; a repeated parameter is refused before anything is read from it.
    .step((ctx) => {
      const raw = readAuthorizeParams(formBody(ctx.ex), maxLength);
      const repeated = [...raw.repeated][0];
      if (repeated !== undefined) throw invalidRequest(`parameter '${repeated.slice(0, 64)}' is repeated`);
      return { raw };
    })
    // The client proves who it is, exactly as at the token endpoint (a public client: its client_id alone).
    .step(async (ctx) => ({
      client: await authenticateClient(
        { infra, policy: ctx.policy },
        { authorization: ctx.ex.req.headers.authorization, params: ctx.raw.values },
      ),
    }))
    // A public client's pushes come from its users' devices, unauthenticated, and each costs a stored record: they
    // share the address's budget of login requests (§2.3's 429). A confidential client's server pushes for all its users.
    .step((ctx) => {
      if (ctx.client.type !== "public") return;
      return infra.loginRequests.tryAttempt(clientAddress(ctx.ex.req, trustProxy)).then((allowed) => {
        if (!allowed) throw oauthError("temporarily_unavailable", "too many requests from this address; try again later", { status: 429 });
      });
    })
    // §2.1: a pushed request cannot itself point at another; the request is the client's own (with Basic, client_id may be left out).
    .step((ctx) => {
      if (ctx.raw.values.has("request_uri")) throw invalidRequest("request_uri cannot be pushed");
      const named = ctx.raw.values.get("client_id");
      if (named !== undefined && named !== ctx.client.id) throw invalidRequest("client_id is not the authenticated client");
      ctx.raw.values.set("client_id", ctx.client.id);
      for (const name of CLIENT_AUTHENTICATION) ctx.raw.values.delete(name);
    })
    // RFC 9449 §10.1: a DPoP proof sent with the push binds the code to its key, as dpop_jkt would; a dpop_jkt that names another key is refused.
    .step(async (ctx) => {
      const jkt = await proofThumbprintIfPresent(infra.dpop, ctx.ex.req, pushUrl, ctx.client);
      if (jkt === undefined) return;
      const named = ctx.raw.values.get("dpop_jkt");
      if (named !== undefined && named !== jkt) throw invalidRequest("dpop_jkt is not the thumbprint of the DPoP proof's key");
      ctx.raw.values.set("dpop_jkt", jkt);
    })
    // The request as authorize checks it: redirect_uri registered, response_type, scope, PKCE, prompt, max_age, ...
    .step((ctx) => {
      const { client, redirectUri, responseMode } = checkClientAndRedirect(ctx.policy, ctx.raw);
      return { request: checkAuthorizeRequest(client, ctx.raw, { redirectUri, responseMode, framed: false }) };
    })
    // id_token_hint: an ID token we signed, as authorize requires.
    .step((ctx) => {
      const hint = ctx.raw.values.get("id_token_hint");
      if (hint !== undefined) return hints.verify(hint, ctx.policy.clients).then(() => undefined);
    })
    // The login it asks for can be planned: login_type, fa, acr_values, login_hint, a MyVendor signature.
    .step((ctx) => void planAuthorization(ctx.policy.login, ctx.client, ctx.raw, ctx.request, "authorize"))
    // §2.2: 201 with the request_uri and its lifetime.
    .step(async (ctx) => {
      const requestUri = await infra.pushedRequests.push(ctx.client.id, [...ctx.raw.values], ttlSeconds);
      writeJson(ctx.ex.res, 201, { request_uri: requestUri, expires_in: ttlSeconds });
    });
  return {
    path: paths.pushedAuthorizationRequest,
    methods: ["POST"],
    readsBody: true,
    // §2.3: every error is the token endpoint's JSON (write-error.ts), also those authorize would redirect: nothing is redirected from here.
    handle: (ex) => table.run({ ex, policy: takeScope(infra).policy }),
  };
}
