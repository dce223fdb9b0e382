import type { Response } from "express";
import { html } from "./html.ts";
import type { PhoneSession } from "./phone-session.ts";
import { sendPage } from "./send-page.ts";

/**
 * The mobile page of a phone that has answered: waiting for its auditor (the page reloads itself until
 * the answer is in) or done. False while the phone is still choosing: the caller draws its own choices.
 */
export function sendPhoneProgress(res: Response, title: string, phone: PhoneSession): boolean {
  if (phone.phase === "waiting") sendPage(res, title, html`<p>Waiting for ${phone.waitingFor}'s approval…</p>`, { refreshSeconds: 2 });
  else if (phone.phase === "done")
    sendPage(res, title, html`<p class="${phone.result!.ok ? "result" : "error"}">${phone.result!.text}</p>`);
  return phone.phase !== "choosing";
}
