import type { ChannelMemberConfig } from "../config/types.generated.ts";

/** The spec's roleId: 0 temporary approved login, 1 operator, 2 channel owner. */
export type ChannelRoleId = 0 | 1 | 2;

/** One channel account of a user: the channel and the user's role in it. */
export interface Channel {
  id: string;
  name: string;
  /** URL of the channel's icon (the `chnl_icon` claim). */
  icon: string;
  roleId: ChannelRoleId;
}

/** channels.yaml names the roles; the wire (the spec's channelinfo, our directory call) numbers them. */
export const ROLE_IDS: Record<ChannelMemberConfig["role"], ChannelRoleId> = { temporary: 0, operator: 1, owner: 2 };

/**
 * Whether a role administers its channel (req_chnl). Operators and owners do; a temporary approved
 * login does not: the spec's channel MobileState `roleIdGt0` refuses exactly those accounts ("temporary
 * users without rights"), so roleId > 0 is the administrator line (docs/decisions.md, Channels).
 */
export function isAdministrator(channel: Pick<Channel, "roleId">): boolean {
  return channel.roleId >= 1;
}

/** The channel `channelId` among a user's channels when the user administers it; both adapters answer `administers` with it. */
export function administeredChannel(channels: readonly Channel[], channelId: string): Channel | undefined {
  const channel = channels.find((c) => c.id === channelId);
  return channel && isAdministrator(channel) ? channel : undefined;
}
