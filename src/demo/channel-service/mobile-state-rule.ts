import type { Channel } from "../../channels/channel.ts";
import { DemoPageError } from "../kit/demo-page-error.ts";

/** SPEC "Channel account info": the channel login's MobileState values; "" is no rule. */
export type MobileStateRule = "roleIdGt0" | "roleIdGt1" | "";

/**
 * The rule a MobileState names. An unknown value is refused rather than read as "no rule": a fourth
 * party that misspells roleIdGt1 must not let temporary accounts in (docs/decisions.md).
 */
export function parseMobileStateRule(mobileState: string | undefined): MobileStateRule {
  const value = mobileState ?? "";
  if (value === "" || value === "roleIdGt0" || value === "roleIdGt1") return value;
  throw new DemoPageError(
    400,
    `This sign-in asks for an unknown channel rule (MobileState "${value}"): only roleIdGt0 and roleIdGt1 exist.`,
  );
}

/** The channels the rule lets the user sign in with: roleIdGt0 hides temporary accounts (0), roleIdGt1 keeps owners (2) only. */
export function channelsAllowedBy(rule: MobileStateRule, channels: readonly Channel[]): Channel[] {
  const above = rule === "roleIdGt0" ? 0 : rule === "roleIdGt1" ? 1 : -1;
  return channels.filter((c) => c.roleId > above);
}
