import type { CustomDataSeal, SealProblem } from "../kit/custom-data-seal.ts";
import { ChannelServiceError } from "./channel-service-error.ts";

/** A value that is not a seal at all is a malformed request; a seal that fails is refused as not this caller's to use. */
const REFUSALS: Record<SealProblem, [400 | 403, string]> = {
  malformed: [400, "login_data is not the sealed data of a channel sign-in"],
  forged: [403, "login_data was not sealed for this user, or was altered"],
  expired: [403, "login_data has expired: it is accepted for 10 minutes after the channel was chosen"],
};

/**
 * The channel id in channelinfo's login_data: the selector page's seal, made for the user of the
 * caller's token (`sub`) within the last 10 minutes. Anything else is refused, so a user's token
 * resolves only the channel that user's scan chose, not any other channel of theirs.
 */
export function openLoginData(seal: CustomDataSeal, loginData: string, sub: string): string {
  const opened = seal.open(loginData, sub);
  if (opened.ok) return opened.payload;
  const [status, msg] = REFUSALS[opened.problem];
  throw new ChannelServiceError(status, msg);
}
