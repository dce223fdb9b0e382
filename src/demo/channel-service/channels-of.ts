import { ROLE_IDS, type Channel } from "../../channels/channel.ts";
import type { ChannelConfig } from "../../config/types.generated.ts";

/** A user's channels in the directory answer's shape (the directory, channelinfo and the selector page share it). */
export function channelsOf(channels: readonly ChannelConfig[], sub: string): Channel[] {
  return channels.flatMap((channel) =>
    channel.members
      .filter((m) => m.sub === sub)
      .map((m) => ({ id: channel.id, name: channel.name, icon: channel.icon, roleId: ROLE_IDS[m.role] })),
  );
}

/** The sub of the channel's owner (roleId 2), who approves a temporary login; undefined when it has none. */
export function ownerOf(channels: readonly ChannelConfig[], channelId: string): string | undefined {
  return channels.find((c) => c.id === channelId)?.members.find((m) => m.role === "owner")?.sub;
}
