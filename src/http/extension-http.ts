import type { Infra } from "../infra/infra.ts";
import { requestScope } from "../infra/scope.ts";
import type { ExtensionHttp } from "../plugin-contract/extension.ts";
import type { BrowserPages } from "../views/browser-pages.ts";
import { answerWithErrorPage } from "../views/browser-pages.ts";
import type { ViewEngine } from "../views/view-engine.ts";
import { resolveLang } from "../i18n/lang.ts";
import { completeAuthorization, responsePage } from "./authorize/complete-authorization.ts";
import { writeAuthorizationResponse } from "./authorize/authorization-response.ts";
import { requiresPushedRequests } from "../oauth/requires-pushed-requests.ts";

/** The HTTP layer's services for the extensions' routes: the authorize endpoint's way of finishing, pages, strings. */
export function extensionHttp(infra: Infra, views: ViewEngine, pages: BrowserPages): ExtensionHttp {
  const http: ExtensionHttp = {
    completeLogin: async (ex, request, login, { idTokenClaims = {} }) => {
      // RFC 9126 §6: a client that requires pushed requests gets no login from any other, an extension's neither.
      const client = requestScope(infra, ex.req).policy.clients.get(request.clientId);
      if (!request.pushed && requiresPushedRequests(client, infra.settings))
        return http.refuse(ex, request, "this client must push its authorization requests, which this login cannot");
      // An extension's login runs its own machines (not a login flow here): the audit trail records that it succeeded, and for whom.
      infra.audit.record({
        type: "login.succeeded",
        flow_id: "extension",
        path: [],
        client_id: request.clientId,
        sub: login.sub,
        amr: login.amr,
        acr: login.acr,
      });
      // The request's one scope: the snapshot the extension read with its context's policy(req).
      return completeAuthorization(
        requestScope(infra, ex.req),
        pages,
        ex.req,
        ex.res,
        request,
        { login },
        { byExtension: { idTokenClaims } },
      );
    },
    refuse(ex, request, description) {
      infra.audit.record({ type: "login.failed", flow_id: "extension", path: [], client_id: request.clientId, reason: "access_denied" });
      const client = requestScope(infra, ex.req).policy.clients.get(request.clientId)!;
      writeAuthorizationResponse(
        ex.res,
        pages,
        request,
        { error: "access_denied", error_description: description, iss: infra.issuer },
        responsePage(ex.req, request, client),
      );
    },
    errorPage: (ex, error) => answerWithErrorPage(pages, infra.logger, ex.req, ex.res, error, ex),
    translate: (ex, requestedLang, key) => views.translate(resolveLang(requestedLang, ex.req.headers["accept-language"]), key),
  };
  return http;
}
