import { CustomDataSeal } from "../kit/custom-data-seal.ts";
import { listenHttp } from "../kit/listen-http.ts";
import type { Clock } from "../../time/clock.ts";
import { readChannelFile } from "./read-channel-file.ts";
import { channelServiceApp } from "./channel-service-app.ts";
import { ProviderTokenVerifier } from "./provider-token-verifier.ts";

export interface ChannelServiceOptions {
  /** A file in channels.yaml's format. */
  channelsFile: string;
  /** The issuer of the provider whose access tokens the service accepts, and where the selector page redeems codes. */
  issuer: string;
  /** The API resource (scopes.yaml) that holds the service's scopes; our tokens name it as their audience. */
  audience?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The address browsers use (the selector's redirect URI starts with it). Default http://localhost:<bound port>. */
  publicUrl?: string;
  /** The channel selector's client. Default the demo's demo-channel / demo-channel-secret. */
  selectClient?: { id: string; secret: string };
  /** The clock of the login_data seals (made and checked); the system clock otherwise. */
  clock?: Clock;
}

export interface RunningChannelService {
  /** The service's base address ({channel_url}). */
  url: string;
  /** Where browsers reach it. */
  publicUrl: string;
  close(): Promise<void>;
}

export const DEMO_CHANNEL_CLIENT = { id: "demo-channel", secret: "demo-channel-secret" } as const;

/** Reads the channels, then listens; resolves once the port is bound. */
export async function startChannelService(options: ChannelServiceOptions): Promise<RunningChannelService> {
  const { channels, loginDataKey } = await readChannelFile(options.channelsFile);
  const verifier = new ProviderTokenVerifier({ issuer: options.issuer, audience: options.audience ?? "channel-service" });
  const listening = await listenHttp(options.host ?? "127.0.0.1", options.port ?? 0);
  const publicUrl = (options.publicUrl ?? `http://localhost:${new URL(listening.url).port}`).replace(/\/+$/, "");
  const seal = new CustomDataSeal(loginDataKey, options.clock);
  const app = channelServiceApp({
    channels,
    verifier,
    seal,
    provider: options.issuer,
    publicUrl,
    selectClient: options.selectClient ?? DEMO_CHANNEL_CLIENT,
  });
  listening.server.on("request", app);
  return { url: listening.url, publicUrl, close: listening.close };
}
