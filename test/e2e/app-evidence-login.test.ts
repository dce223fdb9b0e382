import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { startRelyingParty, type RelyingParty, type RpClient } from "../support/relying-party.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";

/**
 * acr_values app_gps and app_faceid end to end: demo-web (openid-client) asks for them, Chromium shows
 * only the trusted app's QR code (its page script long-polls), the reference app scans it with its
 * position and face check signed in, the user approves with the number, and the RP's ID token carries
 * `gps` and `faceid`. An app that sends no position is refused, and the page says why.
 */
const SUITE = "app_gps / app_faceid login (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("acr_values app_gps app_faceid in Chromium", () => {
  let browser: Browser;
  let rp: RelyingParty;
  let web: RpClient;
  let op: TestProvider;
  let phone: TrustedAppClient;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    rp = await startRelyingParty([{ clientId: "demo-web", secret: "demo-web-secret", configIndex: 0 }]);
    web = rp.client("demo-web");
    [op, browser] = await Promise.all([startTestProvider({ edits: { "clients.yaml": rp.configEdits() } }), launchChromium()]);
    await rp.connect(op.issuer);
    phone = await enrolledPhone(op, "E10001", "Alice's Pixel");
  });
  afterAll(async () => {
    await browser?.close();
    await op?.close();
    await rp?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function qrPage(acrValues: string) {
    const context = await newEnglishContext(browser);
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(web.loginUrl({ acr_values: acrValues }));
    await page.locator("#qrcode-uri").filter({ hasText: "acmeauth://login" }).waitFor();
    return page;
  }

  it("logs alice in with the app's signed position and face check; the ID token carries gps and faceid", async () => {
    const page = await qrPage("app_gps app_faceid");
    // Only the app's QR scan is offered.
    expect(await page.getByRole("button", { name: "Password", exact: true }).count()).toBe(0);
    await phone.scan((await page.locator("#qrcode-uri").textContent())!, { gps: { lat: 25.03, lnt: 121.56 }, faceid: "pass" });
    await expect.poll(() => page.locator("#qrcode-number").count(), { timeout: 15_000 }).toBe(1);
    await phone.approve((await page.locator("#qrcode-number").textContent())!.trim());
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri), { timeout: 30_000 });
    expect(await page.locator("#status").textContent()).toBe("signed in as E10001");
    expect(web.signIns.at(-1)!.claims).toMatchObject({
      sub: "E10001",
      amr: ["qrcode"],
      gps: { lat: 25.03, lnt: 121.56 },
      faceid: { result: "pass" },
    });
  }, 90_000);

  it("refuses an app that sends no position: the page says why and shows a new QR code, and no one is signed in", async () => {
    const page = await qrPage("app_gps");
    const first = (await page.locator("#qrcode-uri").textContent())!;
    await expect(phone.scan(first)).rejects.toThrow();
    await expect.poll(async () => await page.locator("#qrcode-uri").textContent(), { timeout: 30_000 }).not.toBe(first);
    expect(await page.locator("main").textContent()).toMatch(/position|GPS|location/i);
    expect(page.url().startsWith(web.redirectUri)).toBe(false);
  }, 90_000);
});
