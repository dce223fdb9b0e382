import { CHANNEL_DIRECTORY_SCOPE } from "../../channels/channel-directory-token.ts";

/** The scope a channel login's access token carries (SPEC: PCScope "contains the channel login scan scope"). */
export const CHANNEL_LOGIN_SCAN_SCOPE = "channel.login.scan";

/**
 * The service's scopes (the channel-service API resource of scopes.yaml). The channel's open interface
 * (SendMsg, approvals) takes a token with any of them: any token our provider issued for this service.
 */
export const CHANNEL_SCOPES: readonly string[] = [CHANNEL_LOGIN_SCAN_SCOPE, CHANNEL_DIRECTORY_SCOPE];
