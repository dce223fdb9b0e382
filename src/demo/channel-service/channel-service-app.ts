import express, { type NextFunction, type Request, type Response } from "express";
import { CHANNEL_DIRECTORY_SCOPE } from "../../channels/channel-directory-token.ts";
import type { ChannelConfig } from "../../config/types.generated.ts";
import type { CustomDataSeal } from "../kit/custom-data-seal.ts";
import { PageSessions } from "../kit/page-sessions.ts";
import { approvalPages } from "./approval-pages.ts";
import { Approvals } from "./approvals.ts";
import { channelSelectPage } from "./channel-select-page.ts";
import { CHANNEL_LOGIN_SCAN_SCOPE } from "./channel-scopes.ts";
import { ChannelServiceError } from "./channel-service-error.ts";
import { channelsOf } from "./channels-of.ts";
import { MessageBox } from "./message-box.ts";
import { openInterfaceRoutes } from "./open-interface-routes.ts";
import { openLoginData } from "./open-login-data.ts";
import type { ProviderTokenVerifier } from "./provider-token-verifier.ts";
import type { SelectSession } from "./select-session.ts";

/** The spec's channelinfo languages; a request without one is answered as en. */
const LANGS = new Set(["cn", "tw", "en", "jp"]);

export interface ChannelServiceDeps {
  channels: readonly ChannelConfig[];
  verifier: ProviderTokenVerifier;
  /** Seals the channel the selector page writes as custom data; channelinfo opens its login_data with it. */
  seal: CustomDataSeal;
  /** The provider (its issuer): tokens are verified against it, codes redeemed and statuses written at it. */
  provider: string;
  /** The service's address as browsers reach it: the selector's redirect URI and approval links start with it. */
  publicUrl: string;
  /** The channel selector's client (demo-channel). */
  selectClient: { id: string; secret: string };
}

/**
 * The reference channel-account service's routes:
 *   GET  /directory/users/{sub}/channels  (scope channel.directory)  → { channels: [{ id, name, icon, roleId }] }
 *   POST /mp_login/channelinfo            (scope channel.login.scan) → { data: { uid, name, icon, roleId }, code: 200, msg }
 *   the open interface (open-interface-routes.ts), the people's pages (approval-pages.ts) and the channel
 *   selector page (channel-select-page.ts).
 * channelinfo's login_data is the selector page's sealed data naming the channel (open-login-data.ts),
 * the token's sub is the user it must be sealed for; the channel account's uid is `<channel id>:<sub>`. Every API failure is `{ code, msg }` JSON with code = HTTP status, never a stack;
 * the pages answer with error pages.
 */
export function channelServiceApp(deps: ChannelServiceDeps): express.Express {
  const { channels, verifier } = deps;
  const app = express();
  app.disable("x-powered-by");
  const messages = new MessageBox();
  const approvals = new Approvals();
  const secure = deps.publicUrl.startsWith("https:");

  app.get("/directory/users/:sub/channels", async (req, res) => {
    await verifier.verify(req.get("authorization"), CHANNEL_DIRECTORY_SCOPE);
    res.json({ channels: channelsOf(channels, String(req.params.sub)) });
  });

  app.post("/mp_login/channelinfo", express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 }), async (req, res) => {
    const { sub } = await verifier.verify(req.get("authorization"), CHANNEL_LOGIN_SCAN_SCOPE);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const loginData = form.login_data;
    if (typeof loginData !== "string" || loginData === "" || loginData.length > 2000)
      throw new ChannelServiceError(400, "login_data is required");
    const lang = form.lang ?? "en";
    if (typeof lang !== "string" || !LANGS.has(lang)) throw new ChannelServiceError(400, "lang must be one of cn, tw, en, jp");
    const channelId = openLoginData(deps.seal, loginData, sub);
    const channel = channelsOf(channels, sub).find((c) => c.id === channelId);
    // Sealed for this user, who has no account there now (membership changed since the scan): one answer
    // for every channel account that does not exist.
    if (!channel) throw new ChannelServiceError(404, "no channel account of this user for that login_data");
    res.json({
      data: { uid: `${channel.id}:${sub}`, name: channel.name, icon: channel.icon, roleId: channel.roleId },
      code: 200,
      msg: "OK",
    });
  });

  app.use(openInterfaceRoutes({ verifier, messages, approvals, publicUrl: deps.publicUrl }));
  // Distinct cookie names: a browser sends every localhost port's cookies to each of them.
  app.use(approvalPages({ messages, approvals, sessions: new PageSessions("channel_approval", { secure }) }));
  app.use(
    channelSelectPage({
      provider: deps.provider,
      channels,
      seal: deps.seal,
      approvals,
      messages,
      publicUrl: deps.publicUrl,
      client: deps.selectClient,
      sessions: new PageSessions<SelectSession>("channel_select", { secure }),
    }),
  );

  app.use((_req: Request, _res: Response, next: NextFunction) => next(new ChannelServiceError(404, "no such endpoint")));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const known = error instanceof ChannelServiceError ? error : clientError(error);
    res
      .status(known.status)
      .set({ "Cache-Control": "no-store", ...known.headers })
      .json({ code: known.status, msg: known.msg });
  });
  return app;
}

/** body-parser's errors (too large, bad encoding) are the caller's; anything else is ours and says nothing. */
function clientError(error: unknown): ChannelServiceError {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) return new ChannelServiceError(status, "the request cannot be read");
  return new ChannelServiceError(500, "internal error");
}
