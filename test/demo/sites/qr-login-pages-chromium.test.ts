import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium } from "../../support/chromium.ts";
import { startDemoParties, type DemoParties } from "./demo-parties.ts";

/**
 * The demo pages in Chromium with the stand-in's probe as LoginJs: their CSP lets the provider's script
 * do all it must (style element, data: QR, XHR to the provider, the PC form post and the provider's 303
 * back to the site), under jQuery 4 and 1.7. The real script's behaviour is the provider's e2e suite.
 */
/** Generous: a page load on a busy 2-core machine; never a measure of speed. */
const BROWSER_TEST_MS = 120_000;

describe.skipIf(!chromiumAvailable("demo QR login pages in Chromium"))("the demo QR login pages in Chromium", () => {
  let p: DemoParties;
  let browser: Browser;
  beforeAll(async () => {
    [p, browser] = await Promise.all([startDemoParties(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await p?.close();
  });

  async function signIn(url: string, landing: RegExp): Promise<string> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/.test(message.text())) blocked.push(message.text());
    });
    await page.goto(url);
    await page.waitForURL(landing, { timeout: 60_000 });
    const text = await page.locator("body").innerText();
    await context.close();
    expect(blocked).toEqual([]);
    return text;
  }

  it.each([
    ["/custom-login", "4.", "jquery-4"],
    ["/custom-login/legacy", "1.7.2", "jquery-1.7"],
  ])(
    "%s: jQuery %s, the script polls, draws and posts the PC form, and the PC page shows the result",
    async (path, version, variant) => {
      const text = await signIn(`${p.sites.demoWebUrl}${path}`, /\/custom-login\/pc\?/);
      expect(text).toContain(`jQuery ${version}`);
      expect(text).toContain(", approved, margin 30px, width 10");
      expect(text).toMatch(new RegExp(`PCState \\(after the last \\|\\)\\n${variant}\\.[\\w-]{8}`));
    },
    BROWSER_TEST_MS,
  );

  it(
    "the fourth-party page runs the script too, and its callback asks the channel service for the account the state names",
    async () => {
      const text = await signIn(`${p.sites.fourthPartyUrl}/`, /\/callback\?/);
      // The probe's findings are the login_data here: not a channel sign-in's sealed data, so the channel service refuses it.
      expect(text).toContain("The channel service refused: login_data is not the sealed data of a channel sign-in");
    },
    BROWSER_TEST_MS,
  );
});
