import type { Authentication } from "../../oauth/authorization-request.ts";
import type { LoginPlan } from "../../login-policy/plan-login.ts";
import type { ChannelDirectory } from "../../channels/channel-directory.ts";
import { isAdministrator, type Channel } from "../../channels/channel.ts";

/** The ID-token claims a plan adds, or why the login cannot finish (the user administers no channel; the app sent no GPS). */
export type PlanClaims =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; description: string }
  | { ok: "choose"; channels: Channel[] };

/**
 * The claims the acr values ask for: `chnl` (req_chnl; `chnl_name`, `chnl_icon` with chnl_info) from the
 * channel directory, and `gps` / `faceid` (app_gps, app_faceid) from what the trusted app attested in
 * this login (a method's evidence). `chosen`: the channel the user picked among several.
 */
export async function planClaims(
  plan: LoginPlan | undefined,
  login: Authentication,
  channels: ChannelDirectory,
  chosen?: string,
): Promise<PlanClaims> {
  if (plan === undefined) return { ok: true, claims: {} };
  const claims: Record<string, unknown> = {};
  for (const name of ["gps", "faceid"] as const) {
    if (!plan.claims[name]) continue;
    const attested = Object.values(login.evidence ?? {}).find((evidence) => evidence[name] !== undefined)?.[name];
    if (attested === undefined)
      return {
        ok: false,
        description: `the trusted app did not attest ${name === "gps" ? "the device's position (app_gps)" : "a face check (app_faceid)"}`,
      };
    claims[name] = attested;
  }
  if (plan.claims.channel === undefined) return { ok: true, claims };
  const wanted = plan.claims.channel.id ?? chosen;
  let channel: Channel | undefined;
  if (wanted !== undefined) {
    channel = await channels.administers(login.sub, wanted);
    if (!channel)
      return {
        ok: false,
        description:
          plan.claims.channel.id !== undefined
            ? "the user is not an administrator of the channel req_chnl names"
            : "the chosen channel is not one the user administers",
      };
  } else {
    const administered = (await channels.channelsOf(login.sub)).filter(isAdministrator);
    if (administered.length === 0) return { ok: false, description: "the user is not an administrator of any channel (req_chnl)" };
    if (administered.length > 1) return { ok: "choose", channels: administered };
    channel = administered[0]!;
  }
  claims.chnl = channel.id;
  if (plan.claims.channelInfo) Object.assign(claims, { chnl_name: channel.name, chnl_icon: channel.icon });
  return { ok: true, claims };
}
