import type { ServerResponse } from "node:http";
import type { Provider } from "../../provider.ts";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { EidBeginOptions } from "../../eid/eid-upstream.ts";
import { paths } from "../../http-kit/paths.ts";
import { seeOther } from "../../http-kit/see-other.ts";

/**
 * The interaction of an eID login is bound to the browser by this cookie, scoped to the callback only.
 * A name of its own, not the interaction cookie's: browsers share cookies across the ports of one host,
 * and a development upstream on the same host sets interaction cookies of its own.
 */
export const EID_COOKIE = { name: "portcullis_eid_login", path: paths.eidCallback } as const;

/**
 * The eID side of /eID/authorize (its login plan, made like any other, chose the eID login type and
 * its upstream): the start of the login at the upstream eID provider.
 */
export function eidLogins(provider: Provider) {
  return {
    /**
     * Sends the browser to the upstream: the pending login (state, nonce, PKCE verifier) is kept in an
     * interaction of kind "eid", found again by its state and bound to this browser by a cookie that
     * only /eID/callback receives. An upstream that cannot be reached is temporarily_unavailable at the client.
     */
    async begin(res: ServerResponse, request: AuthorizationRequest, upstream: string): Promise<void> {
      const { url, pending } = await provider.eid.begin(upstream, `${provider.issuer}${paths.eidCallback}`, beginOptions(request));
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
