import { randomBytes } from "node:crypto";
import type { Response } from "express";
import { html, type Html } from "../kit/html.ts";
import { sendPage } from "../kit/send-page.ts";

/** The LoginJs parameters of a page (contract §1); absent members are left out of the URL. */
export type LoginJsParams = Partial<
  Record<
    "clientId" | "MobileRedirectUrl" | "MobileScope" | "MobileState" | "PCRedirectUrl" | "PCScope" | "PCState" | "PCClientId" | "lang",
    string
  >
>;

export interface QrLoginPage {
  provider: string;
  title: string;
  /** The site's own jQuery build, e.g. /assets/jquery-4.js. */
  jquery: string;
  loginJs: LoginJsParams;
  /** What the page says above the QR code. */
  intro: Html;
}

/**
 * A relying site's login page as the spec has it: jQuery, one script tag of the provider's LoginJs, and
 * `new AcmeSSO('#qr')`. The CSP allows exactly that: scripts from the site, the provider and one nonce'd
 * inline script; polling the provider; the QR as a data: image; the script's style rules; and the PC
 * authorize form it posts to the provider (whose 303 comes back to this site, so 'self' too).
 */
export function sendQrLoginPage(res: Response, page: QrLoginPage): void {
  const nonce = randomBytes(16).toString("base64");
  const provider = new URL(page.provider).origin;
  const params = new URLSearchParams(Object.entries(page.loginJs).filter((e): e is [string, string] => e[1] !== undefined));
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}' ${provider}`,
    `connect-src ${provider}`,
    `img-src data: ${provider}`,
    "style-src 'unsafe-inline'",
    `form-action 'self' ${provider}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  sendPage(
    res,
    page.title,
    html`${page.intro}<div id="qr"></div>
<script src="${page.jquery}"></script>
<script src="${page.provider}/Acme/CustomLogin/LoginJs?${params.toString()}"></script>
<script nonce="${nonce}">if (window.AcmeSSO) { new AcmeSSO('#qr'); } else { document.getElementById('qr').textContent = 'The identity provider\\'s login script did not load.'; }</script>`,
    { csp },
  );
}
