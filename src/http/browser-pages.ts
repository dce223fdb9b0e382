import type { IncomingMessage, ServerResponse } from "node:http";
import { createNonce, originOf, writePage } from "../views/page-headers.ts";
import { DEFAULT_LANG, resolveLang } from "../views/lang.ts";
import type { ViewEngine } from "../views/view-engine.ts";

/**
 * The pages the protocol layer sends to a browser. The authorize endpoint runs on plain node:http, so
 * these write to a ServerResponse; the view engine renders them.
 */
export interface BrowserPages {
  /** An error the user sees (untrusted client or redirect_uri, expired link); never a redirect. */
  error(req: IncomingMessage, res: ServerResponse, status: number, error: string, description: string, lang?: string): void;
  /** OAuth 2.0 Form Post Response Mode: an auto-submitting form to `action`. */
  formPost(res: ServerResponse, action: string, fields: Array<[string, string]>, target?: "_top"): void;
  /** Leaves an iframe: the top window goes to `url`. */
  topRedirect(res: ServerResponse, url: string): void;
}

export function createBrowserPages(views: ViewEngine): BrowserPages {
  return {
    error(req, res, status, error, description, lang) {
      const html = views.render("error", { error, description }, resolveLang(lang, req.headers["accept-language"]));
      writePage(res, status, html);
    },
    formPost(res, action, fields, target) {
      const nonce = createNonce();
      const html = views.render("form-post", { action, fields: fields.map(([name, value]) => ({ name, value })), nonce, target }, DEFAULT_LANG);
      const origin = originOf(action);
      writePage(res, 200, html, { nonce, formAction: origin ? [origin] : [] });
    },
    topRedirect(res, url) {
      const nonce = createNonce();
      writePage(res, 200, views.render("top-redirect", { url, nonce }, DEFAULT_LANG), { nonce });
    },
  };
}
