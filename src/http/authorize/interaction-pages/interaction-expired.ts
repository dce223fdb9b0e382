import type { Request, Response } from "express";
import type { BrowserPages } from "../../../views/browser-pages.ts";

/** The page for a login link that no longer leads anywhere (unknown, finished, another browser's, or its client or flow removed). */
export function interactionExpired(pages: BrowserPages, req: Request, res: Response, lang: string | undefined): void {
  pages.error(req, res, 400, "interaction_expired", "this login page is no longer valid", lang);
}
