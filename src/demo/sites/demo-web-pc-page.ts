import express from "express";
import { DemoPageError } from "../kit/demo-page-error.ts";
import { exchangeCode, type ConfidentialClient } from "../kit/exchange-code.ts";
import { html } from "../kit/html.ts";
import { readRedirect } from "../kit/read-redirect.ts";
import { sendPage } from "../kit/send-page.ts";
import { splitPcState } from "../kit/split-state.ts";
import { customScanView } from "./custom-scan-view.ts";
import { fetchUserinfo } from "./fetch-userinfo.ts";

export const PC_PATH = "/custom-login/pc";

/**
 * demo-web's PCRedirectUrl (SPEC step 6 and 7): state is `<data>|<PCState>`, split at the last `|` (data may hold bars; this site keeps its PCState free of them);
 * the code is redeemed with demo-web's secret, and the page shows who signed in, the data, PCState,
 * the decoded custom_scan claim and userinfo.
 */
export function demoWebPcPage(provider: string, client: ConfidentialClient): express.Router {
  const router = express.Router();
  router.get(PC_PATH, async (req, res) => {
    const redirect = readRedirect(req.query, provider);
    if (!redirect) throw new DemoPageError(400, "This page is where the provider sends the PC after a QR sign-in: start at /custom-login.");
    const [data, pcState] = splitPcState(redirect.state);
    const { sub, idClaims, accessToken } = await exchangeCode(provider, client, redirect.code);
    const userinfo = await fetchUserinfo(provider, accessToken);
    sendPage(
      res,
      "Signed in on the PC",
      html`<dl><dt>sub</dt><dd>${sub}</dd><dt>data (before the last |)</dt><dd>${data === "" ? "(empty)" : data}</dd>
<dt>PCState (after the last |)</dt><dd>${pcState ?? "(none: the state had no |)"}</dd></dl>
<h2>custom_scan</h2>${customScanView(idClaims.custom_scan)}
<h2>userinfo</h2>${typeof userinfo === "string" ? html`<p>${userinfo}</p>` : html`<dl>${Object.entries(userinfo).map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === "string" ? v : JSON.stringify(v)}</dd>`)}</dl>`}
<p><a href="/custom-login">Sign in again</a></p>`,
    );
  });
  return router;
}
