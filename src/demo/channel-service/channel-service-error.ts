/**
 * An answer of the channel-account service that is not a success. The spec gives channelinfo's success
 * shape `{ data, code: 200, msg }`; its failures keep that shape without `data`, with `code` equal to the
 * HTTP status (400 bad form, 401 no or bad token, 403 scope missing, 404 no such channel account,
 * 503 the provider's keys cannot be fetched). `msg` never echoes the token.
 */
export class ChannelServiceError extends Error {
  static readonly code: string = "ERR_CHANNEL_SERVICE";
  readonly code: string = "ERR_CHANNEL_SERVICE";
  readonly status: number;
  readonly msg: string;
  readonly headers: Record<string, string>;
  override readonly name = "ChannelServiceError";

  constructor(status: number, msg: string, headers: Record<string, string> = {}) {
    super(msg);
    this.status = status;
    this.msg = msg;
    this.headers = headers;
  }
}

/** RFC 6750 §3: a 401 or 403 names the realm and what is wrong with the token. */
export function bearerError(status: 401 | 403, error: string | undefined, msg: string, scope?: string): ChannelServiceError {
  const params = [`realm="channel-service"`, error && `error="${error}"`, scope && `scope="${scope}"`].filter(Boolean).join(", ");
  return new ChannelServiceError(status, msg, { "WWW-Authenticate": `Bearer ${params}` });
}
