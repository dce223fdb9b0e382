import { join } from "node:path";
import { startChannelService, type RunningChannelService } from "../channel-service/start-channel-service.ts";
import { startDemoSites, type RunningDemoSites } from "./start-demo-sites.ts";

/** The demo's ports: the channel-account service, demo-web's pages, the fourth party (config/clients.yaml registers them). */
export const DEMO_PARTY_PORTS = { channelService: 4100, demoWeb: 3005, fourthParty: 3006 } as const;

export interface RunningDemoParties {
  /** What to tell the newcomer: one line per running party, or why it is not running. */
  lines: string[];
  close(): Promise<void>;
}

/**
 * The other parties of the custom QR-code login demo, beside a provider started on the demo config
 * (`npm start`): the reference channel-account service and the demo third-party and fourth-party
 * sites, in this process. A party that cannot start (its port is taken, jQuery is not installed) is
 * reported in one line and left out: the provider runs on regardless.
 */
export async function startDemoParties(issuer: string, configDir: string): Promise<RunningDemoParties> {
  const lines: string[] = [];
  let channel: RunningChannelService | undefined;
  let sites: RunningDemoSites | undefined;
  try {
    channel = await startChannelService({ channelsFile: join(configDir, "channels.yaml"), issuer, port: DEMO_PARTY_PORTS.channelService });
    lines.push(`    channel-account service: ${channel.publicUrl} (inboxes: ${channel.publicUrl}/messages?to=E10001)`);
  } catch (error) {
    lines.push(`    channel-account service not started: ${reason(error, DEMO_PARTY_PORTS.channelService)}`);
  }
  if (channel) {
    try {
      sites = await startDemoSites({
        provider: issuer,
        channelService: channel.url,
        channelServicePublicUrl: channel.publicUrl,
        ports: { demoWeb: DEMO_PARTY_PORTS.demoWeb, fourthParty: DEMO_PARTY_PORTS.fourthParty },
      });
      lines.push(
        `    custom QR-code login: ${sites.demoWebUrl}/custom-login (jQuery 4), ${sites.demoWebUrl}/custom-login/legacy (jQuery 1.7)`,
      );
      lines.push(`    channel login of a fourth party: ${sites.fourthPartyUrl}/`);
    } catch (error) {
      lines.push(`    demo sites not started: ${reason(error, DEMO_PARTY_PORTS.demoWeb)}`);
    }
  }
  return {
    lines,
    async close() {
      await sites?.close();
      await channel?.close();
    },
  };
}

function reason(error: unknown, port: number): string {
  return (error as { code?: unknown }).code === "EADDRINUSE" ? `port ${port} (or the next demo port) is in use` : (error as Error).message;
}
