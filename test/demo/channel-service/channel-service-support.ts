import { join } from "node:path";
import { expect } from "vitest";
import { startChannelService, type RunningChannelService } from "../../../src/demo/channel-service/start-channel-service.ts";
import type { Clock } from "../../../src/time/clock.ts";
import { appendTo, clientEntry, requestPassword } from "../../http/helpers.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/** A client of the channel login (SPEC: PCClientId with PCScope holding the scan scope); the password grant stands in for the QR login. */
export const SCAN_CLIENT = { id: "channel-portal", secret: "channel-portal-secret" } as const;

/** A demo provider that also has SCAN_CLIENT (appended after the demo's six clients). */
export function startChannelProvider(edits: Record<string, Record<string, unknown>> = {}): Promise<TestProvider> {
  const scanClient = clientEntry(SCAN_CLIENT.id, SCAN_CLIENT.secret, ["password"], ["openid", "profile", "channel.login.scan"]);
  return startTestProvider({ edits: { ...edits, "clients.yaml": appendTo("clients", [scanClient]) } });
}

/** The reference channel-account service on a free loopback port, with the provider's copy of the demo channels (and their login_data key). */
export function startServiceFor(p: TestProvider, clock?: Clock): Promise<RunningChannelService> {
  return startChannelService({ channelsFile: join(p.configDir, "channels.yaml"), issuer: p.issuer, ...(clock && { clock }) });
}

/** A user's access token of SCAN_CLIENT with `scope`. */
export async function userToken(p: TestProvider, username: string, scope: string): Promise<string> {
  const res = await requestPassword(p, username, `${username}-password`, { scope }, SCAN_CLIENT);
  expect(res.status, res.text).toBe(200);
  return res.json!.access_token as string;
}
