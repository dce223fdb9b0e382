import { listenHttp, type ListeningServer } from "../kit/listen-http.ts";
import { ChannelServiceClient } from "./channel-service-client.ts";
import { demoWebApp } from "./demo-web-app.ts";
import { fourthPartyApp } from "./fourth-party-app.ts";
import { readJqueryFiles } from "./jquery-files.ts";

export interface DemoSitesOptions {
  /** The provider's issuer, e.g. http://localhost:3000. */
  provider: string;
  /** The channel-account service as the sites' back ends reach it, e.g. http://127.0.0.1:4100. */
  channelService: string;
  /** Where browsers reach the channel service's selector page (the channel client's MobileRedirectUrl). Default channelService. */
  channelServicePublicUrl?: string;
  /** 0 picks a free port. Default 3005 and 3006. */
  ports?: { demoWeb?: number; fourthParty?: number };
  host?: string;
  /** The sites' clients; default the demo's (demo-web, demo-fourth-party, demo-channel) with their demo secrets. */
  clients?: { demoWeb?: { id: string; secret: string }; fourthParty?: { id: string; secret: string }; channelClientId?: string };
  /** demo-web's MobileScope. Default `openid acme.ext.custom_scan channel.login.scan` (the channel scope lets it send SendMsg). */
  mobileScope?: string;
}

export interface RunningDemoSites {
  /** http://localhost:<port> of each site: what browsers use, and the start of their redirect URIs. */
  demoWebUrl: string;
  fourthPartyUrl: string;
  close(): Promise<void>;
}

const trim = (url: string) => url.replace(/\/+$/, "");

/**
 * Starts the demo third-party site (demo-web's custom-login pages, port 3005) and the fourth-party site
 * (3006) in this process; resolves once both ports are bound. Each site's redirect URIs are
 * http://localhost:<port>/..., as config/clients.yaml registers them.
 */
export async function startDemoSites(options: DemoSitesOptions): Promise<RunningDemoSites> {
  const provider = trim(options.provider);
  const channel = new ChannelServiceClient(trim(options.channelService));
  const jquery = await readJqueryFiles();
  const host = options.host ?? "127.0.0.1";
  const bound = await Promise.allSettled([
    listenHttp(host, options.ports?.demoWeb ?? 3005),
    listenHttp(host, options.ports?.fourthParty ?? 3006),
  ]);
  const failed = bound.find((b) => b.status === "rejected");
  if (failed) {
    // One port is busy: free the other before reporting it.
    await Promise.all(bound.map((b) => (b.status === "fulfilled" ? b.value.close() : undefined)));
    throw failed.reason;
  }
  const [web, fourth] = bound.map((b) => (b as PromiseFulfilledResult<ListeningServer>).value) as [ListeningServer, ListeningServer];
  const demoWebUrl = `http://localhost:${new URL(web.url).port}`;
  const fourthPartyUrl = `http://localhost:${new URL(fourth.url).port}`;
  const demoWeb = demoWebApp({
    provider,
    publicUrl: demoWebUrl,
    client: options.clients?.demoWeb ?? { id: "demo-web", secret: "demo-web-secret" },
    mobileScope: options.mobileScope ?? "openid acme.ext.custom_scan channel.login.scan",
    channel,
    jquery,
  });
  web.server.on("request", demoWeb.app);
  fourth.server.on(
    "request",
    fourthPartyApp({
      provider,
      publicUrl: fourthPartyUrl,
      client: options.clients?.fourthParty ?? { id: "demo-fourth-party", secret: "demo-fourth-party-secret" },
      channelClientId: options.clients?.channelClientId ?? "demo-channel",
      channelSelectUrl: `${trim(options.channelServicePublicUrl ?? options.channelService)}/channel/select`,
      channel,
      jquery: jquery["jquery-4.js"],
    }),
  );
  return {
    demoWebUrl,
    fourthPartyUrl,
    close: async () => {
      demoWeb.close();
      await Promise.all([web.close(), fourth.close()]);
    },
  };
}
