import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { readChannelFile } from "./read-channel-file.ts";
import { channelServiceApp } from "./channel-service-app.ts";
import { ProviderTokenVerifier } from "./provider-token-verifier.ts";

export interface ChannelServiceOptions {
  /** A file in channels.yaml's format. */
  channelsFile: string;
  /** The issuer of the provider whose access tokens the service accepts. */
  issuer: string;
  /** The API resource (scopes.yaml) that holds the service's scopes; our tokens name it as their audience. */
  audience?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

export interface RunningChannelService {
  /** The service's base address ({channel_url}). */
  url: string;
  close(): Promise<void>;
}

/** Reads the channels, then listens; resolves once the port is bound. */
export async function startChannelService(options: ChannelServiceOptions): Promise<RunningChannelService> {
  const channels = await readChannelFile(options.channelsFile);
  const verifier = new ProviderTokenVerifier({ issuer: options.issuer, audience: options.audience ?? "channel-service" });
  const host = options.host ?? "127.0.0.1";
  const server = channelServiceApp(channels, verifier).listen(options.port ?? 0, host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
