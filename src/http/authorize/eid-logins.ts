import type { ServerResponse } from "node:http";
import type { Provider } from "../../provider.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { OAuthError } from "../../oauth/oauth-error.ts";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { EidBeginOptions } from "../../eid/eid-upstream.ts";
import { parseAcrValues } from "../../login-policy/acr-values.ts";
import { buildLoginPolicy } from "../../login-policy/build-login-policy.ts";
import type { LoginPolicy, MethodClass } from "../../login-policy/login-policy.ts";
import { planLogin } from "../../login-policy/plan-login.ts";
import { paths } from "../paths.ts";
import { seeOther } from "../see-other.ts";
import type { RawAuthorizeParams } from "./authorize-params.ts";

/** What /eID/authorize's login plan decided: the upstream to broker to, and its accounts' sub prefix. */
export interface EidLogin {
  upstream: string;
  /** An SSO session is an eID account of this upstream when its sub starts with this. */
  subPrefix: string;
  /** The login type's `sso` rule (on by default: eID accounts have full SSO). */
  sso: boolean;
}

/**
 * The interaction of an eID login is bound to the browser by this cookie, scoped to the callback only.
 * A name of its own, not the interaction cookie's: browsers share cookies across the ports of one host,
 * and a development upstream on the same host sets interaction cookies of its own.
 */
export const EID_COOKIE = { name: "portcullis_eid_login", path: paths.eidCallback } as const;

/**
 * SEAM (issue 12): checkAuthorizeRequest refuses every login_type until the login plan is wired into
 * /connect/authorize. /eID/authorize takes login_type out first and gives it to its own plan below.
 * Once authorize-params.ts leaves login_type to the plan, this goes.
 */
export function takeLoginType(raw: RawAuthorizeParams): { raw: RawAuthorizeParams; loginType?: string } {
  const loginType = raw.values.get("login_type");
  if (loginType === undefined) return { raw };
  const values = new Map(raw.values);
  values.delete("login_type");
  // A repeated login_type stays in `repeated`: the shared checks refuse it like any repeated parameter.
  return { raw: { values, repeated: raw.repeated }, loginType };
}

/**
 * The eID side of /eID/authorize: the login plan of the request (planLogin with endpoint "eid", so
 * login_type may be omitted and, when sent, must be eID in any case), and the start of the login at
 * the upstream eID provider.
 */
export function eidLogins(provider: Provider) {
  let policy: LoginPolicy | undefined;
  // Built at the first eID request, once the methods (and their plugins' classes) are loaded.
  const loginPolicy = () => (policy ??= buildLoginPolicy(provider.config.login, methodClasses(provider)));

  return {
    /** Plans the request; sets the login_type the code carries (and the token request must repeat). Refusals go to the client. */
    plan(client: Client, raw: RawAuthorizeParams, request: AuthorizationRequest, loginType: string | undefined): EidLogin {
      const acr = parseAcrValues(raw.values.get("acr_values"));
      if (!acr.ok) throw new OAuthError(400, "invalid_request", acr.description, { allowRedirect: true });
      const result = planLogin(loginPolicy(), {
        endpoint: "eid",
        clientId: client.id,
        allowedLoginTypes: allowedLoginTypes(provider, client.id),
        loginType,
        fa: raw.values.get("fa"),
        acr: acr.requirements,
        loginHint: request.loginHint,
        scopes: request.scopes,
        signature: raw.values.get("signature"),
      });
      if (!result.ok) throw new OAuthError(400, result.error, result.description, { allowRedirect: true });
      const type = loginPolicy().loginTypes.get(result.plan.loginType!.toLowerCase());
      const upstream = type?.upstream === undefined ? undefined : provider.config.login.eid_upstreams?.[type.upstream];
      if (result.plan.flow !== "eid" || upstream === undefined) throw new OAuthError(400, "invalid_request", "no eID login is declared on this server", { allowRedirect: true });
      request.loginType = result.plan.loginType;
      return { upstream: type!.upstream!, subPrefix: upstream.sub_prefix, sso: result.plan.sso.use };
    },

    /**
     * Sends the browser to the upstream: the pending login (state, nonce, PKCE verifier) is kept in an
     * interaction of kind "eid", found again by its state and bound to this browser by a cookie that
     * only /eID/callback receives. An upstream that cannot be reached is temporarily_unavailable at the client.
     */
    async begin(res: ServerResponse, request: AuthorizationRequest, eid: EidLogin): Promise<void> {
      const { url, pending } = await provider.eid.begin(eid.upstream, `${provider.issuer}${paths.eidCallback}`, beginOptions(request));
      const { interaction, browserCookie } = await provider.interactions.create({ kind: "eid", request, pending, flowId: "eid", flowHash: "" });
      await provider.interactions.link(pending.state, interaction);
      res.appendHeader("Set-Cookie", provider.cookies.set(EID_COOKIE.name, browserCookie, { path: EID_COOKIE.path }));
      seeOther(res, url.href);
    },
  };
}

/** The client's own request options the upstream should honour: a fresh login, the login's age, the language. */
function beginOptions(request: AuthorizationRequest): EidBeginOptions {
  const fresh = request.prompt.includes("login") || request.prompt.includes("force_login");
  return { ...(fresh && { prompt: "login" }), ...(request.maxAge !== undefined && { maxAge: request.maxAge }), ...(request.lang !== undefined && { uiLocales: request.lang }) };
}

/** Each configured method's class, as its plugin declares it. */
function methodClasses(provider: Provider): Map<string, MethodClass> {
  return new Map([...provider.methods].map(([id, method]) => [id, method.plugin.class]));
}

/** The client's allowed_login_types, lower-cased; undefined when it names none (every declared type). */
function allowedLoginTypes(provider: Provider, clientId: string): ReadonlySet<string> | undefined {
  const declared = provider.config.clients.clients.find((c) => c.client_id === clientId)?.allowed_login_types;
  return declared === undefined ? undefined : new Set(declared.map((name) => name.toLowerCase()));
}
