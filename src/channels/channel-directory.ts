import type { Channel } from "./channel.ts";

/**
 * Where channel membership comes from (acr_values req_chnl, req_chnl:<id>, chnl_info). Two adapters:
 * the channels in channels.yaml (embedded-channel-directory.ts) and the channel-account service
 * (http-channel-directory.ts). Both throw ChannelDirectoryUnavailable when they cannot answer.
 * For `req_chnl` without an id, the channels to offer (or choose among) are
 * `(await directory.channelsOf(sub)).filter(isAdministrator)` (channel.ts).
 */
export interface ChannelDirectory {
  /** Every channel the user has an account in, in a stable order, with the user's role in each. */
  channelsOf(sub: string): Promise<Channel[]>;
  /** The channel when the user administers it (roleId 1 or 2), else undefined (unknown channel or not an administrator). */
  administers(sub: string, channelId: string): Promise<Channel | undefined>;
}
