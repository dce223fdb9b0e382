import type { IncomingMessage, ServerResponse } from "node:http";
import { createNonce, originOf, redirectTargetSource, writePage } from "./page-headers.ts";
import { resolveLang, type Lang } from "../i18n/lang.ts";
import type { ViewEngine } from "./view-engine.ts";
import type { Logger } from "pino";
import type { OAuthError } from "../errors/oauth-error.ts";
import { toOAuthError } from "../http-kit/write-error.ts";

/**
 * The pages the protocol layer sends to a browser. The authorize endpoint runs on plain node:http, so
 * these write to a ServerResponse; the view engine renders them.
 */
export interface BrowserPages {
  /** An error the user sees (untrusted client or redirect_uri, expired link); never a redirect. */
  error(req: IncomingMessage, res: ServerResponse, status: number, error: string, description: string, lang?: string): void;
  /** An OAuthError as an error page: its status and headers (Allow, ...), its description only when it may be shown. */
  oauthError(req: IncomingMessage, res: ServerResponse, error: OAuthError, lang?: string): void;
  /** OAuth 2.0 Form Post Response Mode: an auto-submitting form to `action` (in the top window when framed). */
  formPost(res: ServerResponse, action: string, fields: Array<[string, string]>, page: ResponsePage): void;
  /** Leaves an iframe: the top window goes to `url`. */
  topRedirect(res: ServerResponse, url: string, page: ResponsePage): void;
  /**
   * The end of a logout: each front-channel logout URL in a hidden iframe, then on to `continueTo` when
   * there is one (a link, and by itself once the frames have loaded or after 3 s).
   */
  loggedOut(res: ServerResponse, page: { frontChannelUrls: string[]; continueTo?: string | undefined }, lang: Lang): void;
}

/** How a page that carries an authorization response is shown. */
export interface ResponsePage {
  lang?: string;
  acceptLanguage?: string;
  /** Set when the page is inside iframe_authz: the origins allowed to frame it (it must show there to leave it). */
  frameAncestors?: string[];
  /**
   * Answer with a page that moves the browser on, never a redirect: the browser came by a redirect
   * chain that began with another site's form post, and that site's CSP form-action (which lists
   * only where it redirects to, us) would block a further redirect to the client (/eID/callback).
   */
  leaveRedirectChain?: boolean;
}

/** Errors whose page says what happened in the reader's language (views/i18n), by status and code. */
const TRANSLATED_ERRORS = new Map([["503 temporarily_unavailable", "error.temporarily_unavailable"]]);

export function createBrowserPages(views: ViewEngine): BrowserPages {
  const pages: BrowserPages = {
    error(req, res, status, error, description, lang) {
      const html = views.render("error", { error, description }, resolveLang(lang, req.headers["accept-language"]));
      writePage(res, status, html);
    },
    oauthError(req, res, error, lang) {
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      const descriptionKey = TRANSLATED_ERRORS.get(`${error.status} ${error.error}`);
      if (descriptionKey === undefined)
        return pages.error(req, res, error.status, error.error, error.expose ? error.description : "an unexpected error occurred", lang);
      // A backend outage is the one failure a person can act on (wait and try again): said in their language.
      if (error.status === 503) res.setHeader("Retry-After", "5");
      const html = views.render("error", { error: error.error, descriptionKey }, resolveLang(lang, req.headers["accept-language"]));
      writePage(res, error.status, html);
    },
    formPost(res, action, fields, page) {
      const nonce = createNonce();
      const target = page.frameAncestors ? "_top" : undefined;
      const html = views.render(
        "form-post",
        { action, fields: fields.map(([name, value]) => ({ name, value })), nonce, target },
        resolveLang(page.lang, page.acceptLanguage),
      );
      writePage(res, 200, html, { nonce, formAction: [redirectTargetSource(action)], frameAncestors: page.frameAncestors });
    },
    topRedirect(res, url, page) {
      const nonce = createNonce();
      const html = views.render("top-redirect", { url, nonce }, resolveLang(page.lang, page.acceptLanguage));
      writePage(res, 200, html, { nonce, frameAncestors: page.frameAncestors });
    },
    loggedOut(res, { frontChannelUrls, continueTo }, lang) {
      // The nonce is the automatic redirect's script's.
      const nonce = continueTo !== undefined ? createNonce() : undefined;
      const html = views.render("logged-out", { frontChannelUrls, postLogoutRedirectUri: continueTo, nonce }, lang);
      const frameSrc = frontChannelUrls.map(originOf).filter((origin): origin is string => origin !== undefined);
      writePage(res, 200, html, { nonce, frameSrc });
    },
  };
  return pages;
}

/**
 * A failure a person is looking at, as an error page: the error as toOAuthError maps it (unexpected ones
 * are logged there); a response already under way is only ended.
 */
export function answerWithErrorPage(
  pages: BrowserPages,
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  context: { reqId: string; path: string },
  lang?: string,
): void {
  const error = toOAuthError(err, logger, context);
  if (res.headersSent) return void res.end();
  pages.oauthError(req, res, error, lang);
}
