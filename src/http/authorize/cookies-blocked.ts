import type { Request, Response } from "express";
import type { Infra } from "../../infra/infra.ts";
import { seeOther } from "../../http-kit/see-other.ts";

/** A cookie with no meaning of its own: set once to learn whether this browser sends cookies back. */
export const COOKIE_TEST = "portcullis_cookie_test";
/** The query parameter that marks the request after the test cookie was set. */
export const COOKIE_CHECK_PARAM = "cookie_check";

/**
 * What a request for a live interaction that lacks its binding cookie means:
 * - `other-browser`: it sent cookies, just not the binding one — another browser (a copied link) or
 *   cleared cookies; the page is "no longer valid", as for any link not bound to this browser.
 * - `blocked`: it sent no cookie at all right after a response that set one — the post-back of the
 *   login page, or the request after the test cookie: this browser does not keep cookies.
 * - `test`: it sent no cookie at all on a plain visit. A fresh browser opening a copied link looks
 *   the same as one that blocks cookies, so a test cookie and one redirect tell them apart.
 */
export function missingCookieReason(req: Request): "other-browser" | "blocked" | "test" {
  if ((req.headers.cookie ?? "").trim() !== "") return "other-browser";
  if (req.method === "POST" || req.query[COOKIE_CHECK_PARAM] !== undefined) return "blocked";
  return "test";
}

/** Sets the test cookie and sends the browser to the same page again, marked as the check. */
export function redirectWithTestCookie(infra: Pick<Infra, "cookies">, req: Request, res: Response): void {
  res.appendHeader("Set-Cookie", infra.cookies.set(COOKIE_TEST, "1"));
  seeOther(res, `${req.path}?${COOKIE_CHECK_PARAM}=1`);
}
