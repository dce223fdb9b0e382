import type { Channel } from "../../channels/channel.ts";
import type { PhoneSession } from "../kit/phone-session.ts";
import type { MobileStateRule } from "./mobile-state-rule.ts";

/** What the channel selector page keeps per phone, server-side (PageSessions). */
export interface SelectSession extends PhoneSession {
  rule: MobileStateRule;
  /** The channels the rule lets this user choose; a post naming any other is refused. */
  offered: Channel[];
}
