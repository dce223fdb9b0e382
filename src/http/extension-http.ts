import type { Provider } from "../provider.ts";
import type { ExtensionHttp } from "../extension-contract/extension.ts";
import type { BrowserPages } from "../views/browser-pages.ts";
import { answerWithErrorPage } from "../views/browser-pages.ts";
import type { ViewEngine } from "../views/view-engine.ts";
import { resolveLang } from "../views/lang.ts";
import { completeAuthorization, responsePage } from "./authorize/complete-authorization.ts";
import { writeAuthorizationResponse } from "./authorize/authorization-response.ts";

/** The HTTP layer's services for the extensions' routes: the authorize endpoint's way of finishing, pages, strings. */
export function extensionHttp(provider: Provider, views: ViewEngine, pages: BrowserPages): ExtensionHttp {
  return {
    completeLogin: (ex, request, login, { idTokenClaims = {} }) =>
      completeAuthorization(provider, pages, ex.req, ex.res, request, { login }, { byExtension: { idTokenClaims } }),
    refuse(ex, request, description) {
      const client = provider.policy.clients.get(request.clientId)!;
      writeAuthorizationResponse(ex.res, pages, request, { error: "access_denied", error_description: description, iss: provider.issuer }, responsePage(ex.req, request, client));
    },
    errorPage: (ex, error) => answerWithErrorPage(pages, provider.logger, ex.req, ex.res, error, ex),
    translate: (ex, requestedLang, key) => views.translate(resolveLang(requestedLang, ex.req.headers["accept-language"]), key),
  };
}
