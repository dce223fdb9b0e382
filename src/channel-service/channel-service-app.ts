import express, { type NextFunction, type Request, type Response } from "express";
import { ROLE_IDS, type Channel } from "../channels/channel.ts";
import { CHANNEL_DIRECTORY_SCOPE } from "../channels/channel-directory-token.ts";
import type { ChannelConfig } from "../config/types.generated.ts";
import { ChannelServiceError } from "./channel-service-error.ts";
import type { ProviderTokenVerifier } from "./provider-token-verifier.ts";

/** The scope a channel login's access token carries (SPEC: PCScope "contains the channel login scan scope"). */
export const CHANNEL_LOGIN_SCAN_SCOPE = "channel.login.scan";

/** The spec's channelinfo languages; a request without one is answered as en. */
const LANGS = new Set(["cn", "tw", "en", "jp"]);

/**
 * The reference channel-account service's routes:
 *   GET  /directory/users/{sub}/channels  (scope channel.directory)  → { channels: [{ id, name, icon, roleId }] }
 *   POST /mp_login/channelinfo            (scope channel.login.scan) → { data: { uid, name, icon, roleId }, code: 200, msg }
 * channelinfo's login_data names the channel, the token's sub is the user; the channel account's uid is
 * `<channel id>:<sub>`. Every failure is `{ code, msg }` JSON with code = HTTP status, never a stack.
 */
export function channelServiceApp(channels: readonly ChannelConfig[], verifier: ProviderTokenVerifier): express.Express {
  const app = express();
  app.disable("x-powered-by");

  app.get("/directory/users/:sub/channels", async (req, res) => {
    await verifier.verify(req.get("authorization"), CHANNEL_DIRECTORY_SCOPE);
    res.json({ channels: channelsOf(channels, String(req.params.sub)) });
  });

  app.post("/mp_login/channelinfo", express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 }), async (req, res) => {
    const { sub } = await verifier.verify(req.get("authorization"), CHANNEL_LOGIN_SCAN_SCOPE);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const loginData = form.login_data;
    if (typeof loginData !== "string" || loginData === "" || loginData.length > 2000) throw new ChannelServiceError(400, "login_data is required");
    const lang = form.lang ?? "en";
    if (typeof lang !== "string" || !LANGS.has(lang)) throw new ChannelServiceError(400, "lang must be one of cn, tw, en, jp");
    const channel = channelsOf(channels, sub).find((c) => c.id === loginData);
    // One answer for "no such channel" and "not a member": a caller learns nothing about other channels.
    if (!channel) throw new ChannelServiceError(404, "no channel account of this user for that login_data");
    res.json({ data: { uid: `${channel.id}:${sub}`, name: channel.name, icon: channel.icon, roleId: channel.roleId }, code: 200, msg: "OK" });
  });

  app.use((_req: Request, _res: Response, next: NextFunction) => next(new ChannelServiceError(404, "no such endpoint")));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const known = error instanceof ChannelServiceError ? error : clientError(error);
    res.status(known.status).set({ "Cache-Control": "no-store", ...known.headers }).json({ code: known.status, msg: known.msg });
  });
  return app;
}

/** A user's channels in the directory answer's shape. */
function channelsOf(channels: readonly ChannelConfig[], sub: string): Channel[] {
  return channels.flatMap((channel) =>
    channel.members.filter((m) => m.sub === sub).map((m) => ({ id: channel.id, name: channel.name, icon: channel.icon, roleId: ROLE_IDS[m.role] })),
  );
}

/** body-parser's errors (too large, bad encoding) are the caller's; anything else is ours and says nothing. */
function clientError(error: unknown): ChannelServiceError {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) return new ChannelServiceError(status, "the request cannot be read");
  return new ChannelServiceError(500, "internal error");
}
