import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl } from "../support/browser-login.ts";
import { chromiumAvailable, launchChromium } from "../support/chromium.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * "Open in the trusted app" on the login page, in Chromium: shown on a phone (a touch screen of phone
 * width), hidden on a desktop, with the acmeauth://sso/oidc link of the page's own authorize request.
 */
const haveChromium = chromiumAvailable("app entry link (Chromium)");

describe.skipIf(!haveChromium)("the login page's app entry link in Chromium", () => {
  let browser: Browser;
  let p: TestProvider;
  beforeAll(async () => {
    [p, browser] = await Promise.all([startTestProvider(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await p?.close();
  });

  async function linkOn(device: { viewport: { width: number; height: number }; isMobile: boolean; hasTouch: boolean }) {
    const context = await browser.newContext({ locale: "en-US", ...device });
    try {
      const page = await context.newPage();
      await page.goto(authorizeUrl(p.issuer, { state: "phone-state" }));
      // Not by role: a hidden link is not in the accessibility tree.
      const link = page.locator(".app-entry a");
      expect(await link.textContent()).toBe("Open in the trusted app");
      return { visible: await link.isVisible(), href: await link.getAttribute("href") };
    } finally {
      await context.close();
    }
  }

  it("shows the link on a phone, to the page's own authorize request", async () => {
    const { visible, href } = await linkOn({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    expect(visible).toBe(true);
    expect(href).toMatch(/^acmeauth:\/\/sso\/oidc\?/);
    expect(Object.fromEntries(new URL(href!).searchParams)).toMatchObject({
      client_id: "demo-web",
      state: "phone-state",
      response_type: "code",
    });
  });

  it("hides it on a desktop", async () => {
    const { visible, href } = await linkOn({ viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false });
    expect(visible).toBe(false);
    expect(href).toMatch(/^acmeauth:\/\/sso\/oidc\?/);
  });
});
