import { generate } from "otplib";
import type { BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable } from "../support/chromium.ts";
import { openPage, setUpOnAccountPage, signInWithPassword, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";

/**
 * TOTP end to end in Chromium: a user signs in with a password, sets up TOTP on the account page (the
 * page's script shows the secret once; the test reads it as a person would type it into an app),
 * confirms with a code from otplib, and later logs in with TOTP alone: the ID token's amr is [totp].
 */
const SUITE = "TOTP login suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
// Several page loads and a sign-in per test: more than the default on a busy machine.
const TIMEOUT = 45_000;

describe.skipIf(!haveChromium)("TOTP in Chromium", () => {
  let suite: MethodSuite;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    suite = await startMethodSuite({ methods: ["totp", "password"] });
  });
  afterAll(() => suite?.close());
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** The code an app with this secret shows `steps` periods from now. */
  const codeOf = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

  it(
    "enrolls on the account page with the QR code's secret, then logs in with a code: amr [totp]",
    async () => {
      const { web, op } = suite;
      let opened = await openPage(suite.browser);
      context = opened.context;
      await signInWithPassword(opened.page, web);
      await setUpOnAccountPage(opened.page, op.issuer, "Code from an authenticator app");

      const { page } = opened;
      const secretText = page.locator("#totp-secret-text");
      await expect.poll(() => secretText.textContent()).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$/);
      expect(await page.locator("#totp-qr").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
      expect(await page.locator("#totp-qr").isVisible()).toBe(true);
      expect(await page.locator("#totp-link").getAttribute("href")).toMatch(/^otpauth:\/\/totp\/Portcullis:alice\?secret=/);
      const secret = (await secretText.textContent())!.replaceAll(" ", "");

      // A mistyped code first: refused, and the page shows the same secret again.
      const right = await codeOf(secret);
      await page.getByLabel("Code shown by the app").fill(right === "000000" ? "111111" : "000000");
      await page.getByRole("button", { name: "Finish setup" }).click();
      await expect.poll(() => page.locator(".error-box").textContent()).toContain("The code is incorrect.");
      await expect.poll(async () => (await secretText.textContent())?.replaceAll(" ", "")).toBe(secret);

      await page.getByLabel("Code shown by the app").fill(await codeOf(secret));
      await page.getByRole("button", { name: "Finish setup" }).click();
      await page.waitForURL((url) => url.pathname === "/account");
      expect(await page.locator(".notice").textContent()).toBe("The method is set up.");

      // A new browser, no session: the login hint names alice, and TOTP is the flow's first method.
      await context.close();
      opened = await openPage(suite.browser);
      context = opened.context;
      await opened.page.goto(web.loginUrl({ login_hint: "alice" }));
      // The enrollment's code used its time step: the app's next code is within the ±1 window.
      await opened.page.getByLabel("Code from your authenticator app").fill(await codeOf(secret, 1));
      await opened.page.getByRole("button", { name: "Verify" }).click();
      await opened.page.waitForURL((url) => url.href.startsWith(web.redirectUri));
      expect(await opened.page.locator("#status").textContent()).toBe("signed in as E10001");
      expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10001", amr: ["totp"], acr: "1fa" });
    },
    TIMEOUT,
  );

  it(
    "shows a reloaded enrollment page no secret, and offers to start over with a new one",
    async () => {
      const { web, op } = suite;
      const opened = await openPage(suite.browser);
      context = opened.context;
      await signInWithPassword(opened.page, web);
      await setUpOnAccountPage(opened.page, op.issuer, "Code from an authenticator app");
      const { page } = opened;
      await expect.poll(() => page.locator("#totp-secret-text").textContent()).not.toBe("");
      const first = await page.locator("#totp-secret-text").textContent();
      await page.reload();
      await expect.poll(() => page.locator("#totp-gone").isVisible()).toBe(true);
      expect(await page.locator("#totp-shown").isVisible()).toBe(false);
      await page.getByRole("button", { name: "Start over with a new key" }).click();
      await expect.poll(() => page.locator("#totp-secret-text").textContent()).toMatch(/^[A-Z2-7 ]+$/);
      expect(await page.locator("#totp-secret-text").textContent()).not.toBe(first);
    },
    TIMEOUT,
  );
});
