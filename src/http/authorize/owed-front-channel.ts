import type { Infra } from "../../infra/infra.ts";
import type { AuthorizationRequest } from "../../oauth/authorization-request.ts";
import type { Exchange } from "../../http-kit/exchange.ts";
import { resolveLang } from "../../i18n/lang.ts";
import { SESSION_COOKIE } from "../../sessions/session-cookie.ts";
import { owedFrontChannel } from "../../sessions/sign-out.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import type { BrowserPages } from "../../views/browser-pages.ts";

/**
 * A browser whose SSO session an operator ended (src/sessions/sign-out-user.ts) was not there for the
 * front-channel logout: it is owed it. Its first top-level GET of the authorize endpoint with the dead
 * cookie (typically the client's own sign-in again, after the back-channel logout signed it out) shows
 * the logged-out page with the iframes, clears the cookie, and continues to the same request by itself.
 * Not in a frame (iframe_authz, prompt=none in a hidden iframe): the page could not show there, and the
 * browser keeps what it is owed for a page that can. True when it answered.
 */
export async function answerOwedFrontChannel(
  infra: Infra,
  policy: PolicySnapshot,
  pages: BrowserPages,
  ex: Exchange,
  request: AuthorizationRequest,
  cookie: string | undefined,
): Promise<boolean> {
  const { req, res } = ex;
  if (cookie === undefined || req.method !== "GET" || request.framed || request.prompt.includes("none")) return false;
  const frontChannelUrls = await owedFrontChannel(infra, cookie, policy.clients);
  if (frontChannelUrls.length === 0) return false;
  const url = req.url ?? "";
  const query = url.indexOf("?");
  res.setHeader("Set-Cookie", infra.cookies.clear(SESSION_COOKIE));
  const continueTo = `${infra.issuer}${ex.path}${query === -1 ? "" : url.slice(query)}`;
  pages.loggedOut(res, { frontChannelUrls, continueTo }, resolveLang(request.lang, req.headers["accept-language"]));
  return true;
}
