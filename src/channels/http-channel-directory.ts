import type { Logger } from "pino";
import { OutboundRequestError, sendOutbound } from "../delivery/outbound-request.ts";
import { administeredChannel, type Channel } from "./channel.ts";
import type { ChannelDirectory } from "./channel-directory.ts";
import { ChannelDirectoryUnavailable } from "./channel-directory-unavailable.ts";
import { readChannelList } from "./read-channel-list.ts";

export interface HttpChannelDirectoryOptions {
  /** The channel-account service's base address ({channel_url}). */
  url: string;
  /** The deadline of one call, in milliseconds. */
  timeoutMs: number;
  /** An access token of ours with the `channel.directory` scope (channel-directory-token.ts). */
  accessToken: () => string;
  /** Where a failed call is reported (warn): the login only says temporarily_unavailable. */
  logger: Pick<Logger, "warn">;
}

/**
 * The channel-account service as the directory: `GET {url}/directory/users/{sub}/channels` with our
 * access token as a Bearer, answered `{ channels: [{ id, name, icon, roleId }] }` (src/demo/channel-service/
 * serves it). Every failure — down, slow, non-2xx, malformed — is ChannelDirectoryUnavailable; nothing
 * is cached, so a role taken away at the service counts from the next login on.
 */
export class HttpChannelDirectory implements ChannelDirectory {
  private readonly options: HttpChannelDirectoryOptions;
  private readonly base: string;

  constructor(options: HttpChannelDirectoryOptions) {
    this.options = options;
    this.base = options.url.replace(/\/+$/, "");
  }

  async channelsOf(sub: string): Promise<Channel[]> {
    try {
      return await this.fetchChannels(sub);
    } catch (error) {
      // The service's origin and the reason only: the path names the user, the token is a credential.
      if (error instanceof ChannelDirectoryUnavailable)
        this.options.logger.warn({ service: new URL(this.base).origin, reason: error.reason }, "channel directory unavailable");
      throw error;
    }
  }

  private async fetchChannels(sub: string): Promise<Channel[]> {
    let text: string;
    try {
      ({ text } = await sendOutbound(`${this.base}/directory/users/${encodeURIComponent(sub)}/channels`, {
        method: "GET",
        headers: { accept: "application/json", authorization: `Bearer ${this.options.accessToken()}` },
        timeoutMs: this.options.timeoutMs,
      }));
    } catch (error) {
      if (error instanceof OutboundRequestError) throw new ChannelDirectoryUnavailable(error.reason);
      throw error;
    }
    const channels = readChannelList(parseJson(text));
    if (!channels) throw new ChannelDirectoryUnavailable("answered something that is not a channel list");
    return channels;
  }

  async administers(sub: string, channelId: string): Promise<Channel | undefined> {
    return administeredChannel(await this.channelsOf(sub), channelId);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
