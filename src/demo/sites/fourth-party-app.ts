import express from "express";
import { decodeCustomScan } from "../kit/custom-scan.ts";
import { DemoPageError } from "../kit/demo-page-error.ts";
import { exchangeCode } from "../kit/exchange-code.ts";
import { html } from "../kit/html.ts";
import { pageErrorHandler } from "../kit/page-error-handler.ts";
import { readRedirect } from "../kit/read-redirect.ts";
import { sendPage } from "../kit/send-page.ts";
import { splitPcState } from "../kit/split-state.ts";
import type { StaticFile } from "../../http-kit/send-static-file.ts";
import { sendStaticFile } from "../../http-kit/send-static-file.ts";
import type { ChannelServiceClient } from "./channel-service-client.ts";
import { customScanView } from "./custom-scan-view.ts";
import { sendQrLoginPage } from "./qr-login-page.ts";

export interface FourthPartyOptions {
  provider: string;
  publicUrl: string;
  /** This site's own client (demo-fourth-party): the PC side. */
  client: { id: string; secret: string };
  /** The channel's client (demo-channel): the phone side, and the channel service's selector page as MobileRedirectUrl. */
  channelClientId: string;
  channelSelectUrl: string;
  channel: ChannelServiceClient;
  jquery: StaticFile;
}

/** The rules the newcomer may pick with ?rule= (SPEC: MobileState values of the channel login); roleIdGt0 by default. */
const RULES: Record<string, string | undefined> = { roleIdGt0: "roleIdGt0", roleIdGt1: "roleIdGt1", none: undefined };

/**
 * The fourth party of the spec's channel use case: it embeds LoginJs with the channel's clientId and its
 * own PCClientId (SPEC "Channel account info", use case), then looks the channel account up.
 *   GET /[?rule=roleIdGt0|roleIdGt1|none]  the QR page
 *   GET /callback                          the PC login: login_data = the state before the last |, channelinfo,
 *                                          and a temporary account (roleId 0) only with an approver in custom_scan
 */
export function fourthPartyApp(options: FourthPartyOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  const callback = `${options.publicUrl}/callback`;

  app.get("/assets/jquery-4.js", (req, res) => sendStaticFile(req, res, options.jquery, "public, max-age=3600"));

  app.get("/", (req, res) => {
    const asked = typeof req.query.rule === "string" ? req.query.rule : "roleIdGt0";
    if (!(asked in RULES)) throw new DemoPageError(400, "rule must be roleIdGt0, roleIdGt1 or none.");
    const links = Object.keys(RULES).map((r) => (r === asked ? html`<strong>${r}</strong> ` : html`<a href="/?rule=${r}">${r}</a> `));
    sendQrLoginPage(res, {
      provider: options.provider,
      title: "Fourth-party site: sign in with your channel account",
      jquery: "/assets/jquery-4.js",
      intro: html`<p>Channel rule (MobileState): ${links}</p>`,
      loginJs: {
        clientId: options.channelClientId,
        MobileRedirectUrl: options.channelSelectUrl,
        MobileState: RULES[asked],
        PCClientId: options.client.id,
        PCScope: "openid profile channel.login.scan",
        PCRedirectUrl: callback,
      },
    });
  });

  app.get("/callback", async (req, res) => {
    const redirect = readRedirect(req.query, options.provider);
    if (!redirect) throw new DemoPageError(400, "This page is where the provider sends the PC after a QR sign-in: start at /.");
    const [loginData] = splitPcState(redirect.state);
    const { idClaims, accessToken } = await exchangeCode(options.provider, { ...options.client, redirectUri: callback }, redirect.code);
    const account = await options.channel.channelInfo(accessToken, loginData);
    const scan = decodeCustomScan(idClaims.custom_scan);
    const details = html`<dl><dt>uid</dt><dd>${account.uid}</dd><dt>name</dt><dd>${account.name}</dd><dt>icon</dt><dd>${account.icon}</dd><dt>roleId</dt><dd>${account.roleId}</dd></dl>
<h2>custom_scan</h2>${customScanView(idClaims.custom_scan)}<p><a href="/">Back</a></p>`;
    // SPEC: "When roleId = 0, the consumer is strongly advised to check the scan information for the approver's account, or refuse the login."
    if (account.roleId === 0 && !scan?.aud) {
      return sendPage(
        res,
        "Sign-in refused",
        html`<p class="error">Refused: ${account.name} is a temporary account (roleId 0), and this sign-in names no approver (custom_scan aud is empty).</p>${details}`,
        { status: 403 },
      );
    }
    sendPage(res, `Signed in as ${account.name}`, html`<p class="result">Signed in with the channel account ${account.uid}.</p>${details}`);
  });

  app.use(pageErrorHandler);
  return app;
}
