/**
 * The whole custom QR-code login stack in this test process, every party on a free loopback port: the
 * channel-account service, the demo sites (demo-web's pages and the fourth party) and a real provider
 * whose copied config registers the redirect URIs at the ports the sites actually got. The sites and
 * the channel service are told the provider's issuer before it starts (they fetch its keys lazily),
 * so each checks the ID token's `iss` against the address the provider really has.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { startChannelService, type RunningChannelService } from "../../src/demo/channel-service/start-channel-service.ts";
import { startDemoSites, type RunningDemoSites } from "../../src/demo/sites/start-demo-sites.ts";
import type { Clock } from "../../src/time/clock.ts";
import { freePort } from "./services.ts";
import { DEMO_CONFIG, startTestProvider, type TestProvider } from "./test-provider.ts";

const DEMO_CHANNELS = fileURLToPath(new URL("../../config/channels.yaml", import.meta.url));

export interface CustomLoginStack {
  op: TestProvider;
  channel: RunningChannelService;
  sites: RunningDemoSites;
  close(): Promise<void>;
}

export interface CustomLoginStackOptions {
  /** The provider's clock (the expiry story moves it). */
  clock?: Clock;
  /** More edits of the provider's copied config, merged per file. */
  edits?: Record<string, Record<string, unknown>>;
}

/** The position of a client in the demo's clients.yaml, for a dotted-path config edit. */
function demoClientIndex(clientId: string): number {
  const file = parse(readFileSync(`${DEMO_CONFIG}/clients.yaml`, "utf8")) as { clients: Array<{ client_id: string }> };
  const index = file.clients.findIndex((c) => c.client_id === clientId);
  if (index < 0) throw new Error(`${clientId} is not in the demo's clients.yaml`);
  return index;
}

export async function startCustomLoginStack(options: CustomLoginStackOptions = {}): Promise<CustomLoginStack> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const channel = await startChannelService({ channelsFile: DEMO_CHANNELS, issuer });
  const sites = await startDemoSites({
    provider: issuer,
    channelService: channel.url,
    channelServicePublicUrl: channel.publicUrl,
    ports: { demoWeb: 0, fourthParty: 0 },
  });
  const redirectUris = (clientId: string, uris: string[]) => ({ [`clients.${demoClientIndex(clientId)}.redirect_uris`]: uris });
  let op: TestProvider;
  try {
    op = await startTestProvider({
      issuer,
      ...(options.clock && { clock: options.clock }),
      edits: {
        ...options.edits,
        // Every test scans and logs in several times from this one address.
        "provider.yaml": { "listen.port": port, "security.login_requests_per_ip.max": 10_000, ...options.edits?.["provider.yaml"] },
        "clients.yaml": {
          ...redirectUris("demo-web", [`${sites.demoWebUrl}/custom-login/mobile`, `${sites.demoWebUrl}/custom-login/pc`]),
          ...redirectUris("demo-channel", [`${channel.publicUrl}/channel/select`]),
          ...redirectUris("demo-fourth-party", [`${sites.fourthPartyUrl}/callback`]),
          ...options.edits?.["clients.yaml"],
        },
      },
    });
  } catch (error) {
    await sites.close();
    await channel.close();
    throw error;
  }
  return {
    op,
    channel,
    sites,
    close: async () => {
      await sites.close();
      await channel.close();
      await op.close();
    },
  };
}
