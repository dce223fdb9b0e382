import type { NextFunction, Request, Response } from "express";
import { DemoPageError } from "./demo-page-error.ts";
import { html } from "./html.ts";
import { sendPage } from "./send-page.ts";

/**
 * Express's last error handler for the demo pages: a DemoPageError is shown with its status; body-parser's
 * 4xx (too large, bad encoding) are the browser's mistake; anything else is a 500 that says nothing and
 * is logged with its stack on the server side only.
 */
export function pageErrorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const known = error instanceof DemoPageError ? error : clientError(error);
  if (!known) console.error(error);
  const { status, message } = known ?? { status: 500, message: "Something went wrong on this site." };
  sendPage(res, "Sorry", html`<p class="error">${message}</p>`, { status });
}

function clientError(error: unknown): DemoPageError | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status < 500 ? new DemoPageError(status, "The request cannot be read.") : undefined;
}
