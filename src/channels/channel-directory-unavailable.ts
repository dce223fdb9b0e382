import { OAuthError } from "../errors/oauth-error.ts";

/**
 * The channel directory could not answer (the channel-account service is down, slow, or answered
 * something that is not a directory answer). It is the spec's temporarily_unavailable (503): the
 * user did nothing wrong and may try again. `reason` is safe to log: a status or an error code,
 * never the URL's secrets, the token, or the answer.
 */
export class ChannelDirectoryUnavailable extends OAuthError {
  static override readonly code: string = "ERR_CHANNEL_DIRECTORY_UNAVAILABLE";
  override readonly code: string = "ERR_CHANNEL_DIRECTORY_UNAVAILABLE";
  readonly reason: string;

  constructor(reason: string) {
    super(503, "temporarily_unavailable", "the channel directory is temporarily unavailable, try again later");
    this.reason = reason;
  }
}
