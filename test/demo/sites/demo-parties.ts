import { fileURLToPath } from "node:url";
import { startChannelService, type RunningChannelService } from "../../../src/demo/channel-service/start-channel-service.ts";
import { startDemoSites, type RunningDemoSites } from "../../../src/demo/sites/start-demo-sites.ts";
import { RawBrowser, hiddenField, type Answer } from "../../support/raw-browser.ts";
import { startStandInProvider, type Grant, type StandInProvider } from "../../support/stand-in-provider.ts";
import { eventually } from "../../support/start-process.ts";

const DEMO_CHANNELS = fileURLToPath(new URL("../../../config/channels.yaml", import.meta.url));

/** The demo's parties on loopback, against a stand-in provider: the channel service and both demo sites. */
export interface DemoParties {
  provider: StandInProvider;
  channel: RunningChannelService;
  sites: RunningDemoSites;
  close(): Promise<void>;
}

export async function startDemoParties(): Promise<DemoParties> {
  const provider = await startStandInProvider();
  const channel = await startChannelService({ channelsFile: DEMO_CHANNELS, issuer: provider.issuer });
  const sites = await startDemoSites({
    provider: provider.issuer,
    channelService: channel.url,
    channelServicePublicUrl: channel.publicUrl,
    ports: { demoWeb: 0, fourthParty: 0 },
  });
  return {
    provider,
    channel,
    sites,
    close: async () => {
      await sites.close();
      await channel.close();
      await provider.close();
    },
  };
}

/**
 * What the trusted app's scan leads to: the provider's redirect to a mobile page with a fresh code for
 * `grant` and `state`, then the page's 303 to itself, followed.
 */
export async function openMobilePage(p: DemoParties, browser: RawBrowser, grant: Grant, state: string): Promise<Answer> {
  const code = p.provider.issueCode(grant);
  const query = new URLSearchParams({ code, state, iss: p.provider.issuer });
  return browser.follow(await browser.get(`${grant.redirectUri}?${query}`));
}

/** Posts the page's first form with its CSRF token and `fields`, and follows the 303. */
export async function submit(browser: RawBrowser, page: Answer, fields: Record<string, string>): Promise<Answer> {
  const csrf = hiddenField(page.text, "csrf");
  if (!csrf) throw new Error(`no CSRF field on ${page.url}: ${page.text}`);
  return browser.follow(await browser.post(page.url, { csrf, ...fields }));
}

/** The approval link of the newest message to `account`, read from its inbox page. */
export async function approvalLink(p: DemoParties, account: string): Promise<string> {
  const inbox = await new RawBrowser().get(`${p.channel.url}/messages?to=${encodeURIComponent(account)}`);
  const link = /<a href="([^"]+\/approvals\/[^"]+)">/.exec(inbox.text)?.[1];
  if (!link) throw new Error(`no approval link in the inbox of ${account}: ${inbox.text}`);
  return link;
}

/** Answers an approval as its addressee would, in a browser of their own. */
export async function answerApproval(link: string, decision: "approve" | "refuse"): Promise<Answer> {
  const owner = new RawBrowser();
  return submit(owner, await owner.get(link), { decision });
}

/** Waits (generously) until the provider has seen `count` status writes. */
export const writesReach = (p: DemoParties, count: number) =>
  eventually(() => p.provider.writes.length >= count, `${count} status writes`, 30_000);
