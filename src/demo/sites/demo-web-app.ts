import { randomBytes } from "node:crypto";
import express from "express";
import { html } from "../kit/html.ts";
import { pageErrorHandler } from "../kit/page-error-handler.ts";
import { PageSessions } from "../kit/page-sessions.ts";
import { sendStaticFile, type StaticFile } from "../../http-kit/send-static-file.ts";
import { ApprovalWatcher } from "./approval-watcher.ts";
import type { ChannelServiceClient } from "./channel-service-client.ts";
import { demoWebMobilePage, MOBILE_PATH, type DemoWebPhone } from "./demo-web-mobile-page.ts";
import { demoWebPcPage, PC_PATH } from "./demo-web-pc-page.ts";
import type { JqueryFile } from "./jquery-files.ts";
import { sendQrLoginPage } from "./qr-login-page.ts";

export interface DemoWebOptions {
  provider: string;
  /** Where browsers reach this site (its redirect URIs start with it). */
  publicUrl: string;
  client: { id: string; secret: string };
  /** The phone side's scopes: the custom login's, and a channel scope for the channel service's SendMsg and approvals. */
  mobileScope: string;
  channel: ChannelServiceClient;
  jquery: Record<JqueryFile, StaticFile>;
}

/** The demo-web client's pages of the custom QR login: the PC pages (jQuery 4 and 1.7), the mobile page and the PC landing page. */
export function demoWebApp(options: DemoWebOptions): { app: express.Express; close(): void } {
  const app = express();
  app.disable("x-powered-by");
  const watcher = new ApprovalWatcher(options.channel);
  const mobileRedirect = `${options.publicUrl}${MOBILE_PATH}`;
  const pcRedirect = `${options.publicUrl}${PC_PATH}`;

  for (const name of Object.keys(options.jquery) as JqueryFile[]) {
    app.get(`/assets/${name}`, (req, res) => sendStaticFile(req, res, options.jquery[name], "public, max-age=3600"));
  }

  const loginPage = (variant: "jquery-4" | "jquery-1.7") => (_req: express.Request, res: express.Response) =>
    sendQrLoginPage(res, {
      provider: options.provider,
      title: `Demo site: sign in with the QR code (${variant})`,
      jquery: `/assets/${variant}.js`,
      intro: html`<p>Scan the code with the trusted app. The PC page then receives <code>state=&lt;data&gt;|&lt;PCState&gt;</code>; the data may hold bars of its own, so this page keeps its PCState free of them and splits at the last one.</p>`,
      loginJs: {
        clientId: options.client.id,
        MobileRedirectUrl: mobileRedirect,
        MobileScope: options.mobileScope,
        MobileState: variant,
        PCRedirectUrl: pcRedirect,
        PCState: `${variant}.${randomBytes(6).toString("base64url")}`,
      },
    });
  app.get("/custom-login", loginPage("jquery-4"));
  app.get("/custom-login/legacy", loginPage("jquery-1.7"));

  // A distinct cookie name: the browser sends every localhost port's cookies to each of them.
  app.use(
    demoWebMobilePage({
      provider: options.provider,
      client: { ...options.client, redirectUri: mobileRedirect },
      channel: options.channel,
      watcher,
      sessions: new PageSessions<DemoWebPhone>("demoweb_phone", { secure: options.publicUrl.startsWith("https:") }),
    }),
  );
  app.use(demoWebPcPage(options.provider, { ...options.client, redirectUri: pcRedirect }));
  app.use(pageErrorHandler);
  return { app, close: () => watcher.close() };
}
