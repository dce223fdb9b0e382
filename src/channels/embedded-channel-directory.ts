import type { ChannelConfig } from "../config/types.generated.ts";
import { administeredChannel, ROLE_IDS, type Channel } from "./channel.ts";
import type { ChannelDirectory } from "./channel-directory.ts";

/** The channels declared in channels.yaml, indexed by member once (a login asks per user). */
export class EmbeddedChannelDirectory implements ChannelDirectory {
  private readonly bySub = new Map<string, Channel[]>();

  constructor(channels: readonly ChannelConfig[]) {
    for (const channel of channels) {
      for (const member of channel.members) {
        const list = this.bySub.get(member.sub) ?? [];
        list.push({ id: channel.id, name: channel.name, icon: channel.icon, roleId: ROLE_IDS[member.role] });
        this.bySub.set(member.sub, list);
      }
    }
  }

  async channelsOf(sub: string): Promise<Channel[]> {
    // Copies: a caller that edits its list must not change the directory.
    return (this.bySub.get(sub) ?? []).map((channel) => ({ ...channel }));
  }

  async administers(sub: string, channelId: string): Promise<Channel | undefined> {
    return administeredChannel(await this.channelsOf(sub), channelId);
  }
}
