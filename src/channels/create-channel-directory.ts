import type { Logger } from "pino";
import type { Clock } from "../time/clock.ts";
import { parseDuration } from "../time/duration.ts";
import type { ConfigData } from "../config/cross-field-rule.ts";
import type { AccessTokenIssuer } from "../tokens/access-token.ts";
import type { ScopeRegistry } from "../scopes/scope-registry.ts";
import type { ChannelDirectory } from "./channel-directory.ts";
import { channelDirectoryToken } from "./channel-directory-token.ts";
import { EmbeddedChannelDirectory } from "./embedded-channel-directory.ts";
import { HttpChannelDirectory } from "./http-channel-directory.ts";

/** The adapter channels.yaml `directory.kind` names; the config rules have checked its settings. */
export function createChannelDirectory(
  config: ConfigData,
  accessTokens: AccessTokenIssuer,
  resources: () => Pick<ScopeRegistry, "resourcesFor">,
  clock: Clock,
  logger: Logger,
): ChannelDirectory {
  const { directory, channels } = config.channels;
  if (directory.kind === "embedded") return new EmbeddedChannelDirectory(channels);
  const clientId = directory.client_id!;
  const client = config.clients.clients.find((c) => c.client_id === clientId);
  const lifetime = parseDuration(client?.lifetimes?.access_token ?? config.provider.lifetimes.client_credentials_access_token);
  return new HttpChannelDirectory({
    url: directory.url!,
    timeoutMs: parseDuration(directory.timeout) * 1000,
    accessToken: channelDirectoryToken(accessTokens, resources, clientId, lifetime, clock),
    logger,
  });
}
