/**
 * Test support for the trusted app: a phone enrolled through the operator's one-time URI, and the
 * qrcode login page over raw HTTP (its challenge id, its QR code's URI, the CHECK the page script posts).
 */
import { expect } from "vitest";
import { TrustedAppClient, type ClientOptions } from "../../src/cli/reference-app/trusted-app-client.ts";
import { authorizeUrl } from "../support/browser-login.ts";
import { formAction, hiddenField, RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/** An acmeauth://enroll URI for the user, as `portcullis methods enroll USER qrcode` prints it. */
export async function operatorEnrollUri(p: TestProvider, sub: string): Promise<string> {
  const qrcode = p.provider.methods.get("qrcode")!;
  const printed = await qrcode.plugin.enrollByOperator!(qrcode.context, sub, {});
  return printed.split("\n")[0]!;
}

/** A phone enrolled for `sub` (E10001 is alice, E10002 bob in the demo users). */
export async function enrolledPhone(
  p: TestProvider,
  sub = "E10001",
  name = "Alice's phone",
  options: ClientOptions = {},
): Promise<TrustedAppClient> {
  return TrustedAppClient.enroll(await operatorEnrollUri(p, sub), name, options);
}

/** A demo-config test provider with alice's phone enrolled: the starting point of most trusted-app tests. */
export async function providerWithPhone(): Promise<{ p: TestProvider; phone: TrustedAppClient }> {
  const p = await startTestProvider();
  return { p, phone: await enrolledPhone(p) };
}

/** The qrcode step of a login page: where it polls, its challenge id. */
export function challengeOf(page: Answer): { pollUrl: string; challengeId: string; state: string } {
  const poll = /id="qrcode-poll" data-state="([a-z]+)" data-poll="([^"]+)"/.exec(page.text);
  expect(poll, page.text.slice(0, 2000)).toBeTruthy();
  const pollUrl = new URL(poll![2]!, page.url).href;
  return { pollUrl, challengeId: pollUrl.split("/").pop()!, state: poll![1]! };
}

/** What the page script learns from the long-poll (at once, without `seen`). */
export async function pollOnce(browser: RawBrowser, page: Answer, seen?: string): Promise<{ state: string; uri?: string }> {
  const { pollUrl } = challengeOf(page);
  const answer = await browser.get(seen === undefined ? pollUrl : `${pollUrl}?seen=${seen}`);
  expect(answer.status, answer.text).toBe(200);
  return JSON.parse(answer.text) as { state: string; uri?: string };
}

/** Posts one of the qrcode step's buttons (CHECK or REFRESH), as the page script does. */
export function press(browser: RawBrowser, page: Answer, event: "CHECK" | "REFRESH"): Promise<Answer> {
  return browser.post(formAction(page.text, page.url), { csrf: hiddenField(page.text, "csrf") ?? "", event });
}

/** Opens a login page whose flow starts with qrcode: the scan step and the QR code's acmeauth://login URI. */
export async function openQrLogin(
  p: TestProvider,
  extra: Record<string, string> = {},
): Promise<{ browser: RawBrowser; page: Answer; uri: string }> {
  const browser = new RawBrowser();
  const page = await browser.follow(await browser.get(authorizeUrl(p.issuer, extra)));
  expect(page.status).toBe(200);
  expect(challengeOf(page).state).toBe("pending");
  const { state, uri } = await pollOnce(browser, page);
  expect(state).toBe("pending");
  return { browser, page, uri: uri! };
}

/** The number the approval step shows. */
export function numberOn(page: Answer): string {
  const match = /id="qrcode-number"[^>]*>([0-9]+)</.exec(page.text);
  expect(match, page.text.slice(0, 2000)).toBeTruthy();
  return match![1]!;
}
