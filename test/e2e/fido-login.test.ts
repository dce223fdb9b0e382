import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable } from "../support/chromium.ts";
import { openPage, signInWithPassword, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";
import type { FidoEnrollment } from "../../flows/methods/fido/fido-enrollment-record.ts";
import { addVirtualAuthenticator, registerOnAccountPage } from "../support/virtual-authenticator.ts";

/**
 * FIDO2 end to end in Chromium with the DevTools virtual authenticator (a platform authenticator with
 * user verification): a user signs in with a password, registers it on the account page, and later
 * logs in with it alone — the ID token's amr is [fido]. The provider runs as http://localhost:<port>:
 * the RP id defaults to the issuer's host, and browsers refuse IP addresses as RP ids.
 */
const SUITE = "FIDO2 login suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
// Several page loads and a sign-in per test: more than the default on a busy machine.
const TIMEOUT = 45_000;

describe.skipIf(!haveChromium)("FIDO2 in Chromium", () => {
  let suite: MethodSuite;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    suite = await startMethodSuite({ methods: ["fido", "password"], localhost: true });
  });
  afterAll(() => suite?.close());
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** A page with a virtual authenticator attached (it lives as long as the page). */
  async function pageWithAuthenticator(): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
    const opened = await openPage(suite.browser);
    context = opened.context;
    return { page: opened.page, ...(await addVirtualAuthenticator(opened.page)) };
  }

  const credentialsOf = async (cdp: CDPSession, authenticatorId: string) =>
    (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;

  it(
    "registers the authenticator on the account page, then logs in with it: amr [fido]",
    async () => {
      const { web, op } = suite;
      expect(op.issuer).toMatch(/^http:\/\/localhost:\d+$/);
      const { page, cdp, authenticatorId } = await pageWithAuthenticator();
      await signInWithPassword(page, web);

      await registerOnAccountPage(page, op.issuer);
      expect(await page.locator(".notice").textContent()).toBe("The method is set up.");
      const [created] = await credentialsOf(cdp, authenticatorId);
      expect(created).toMatchObject({ rpId: "localhost" });
      const record = (await op.provider.enrollments.get("fido", "E10001"))!.data as FidoEnrollment;
      expect(record.credentials).toHaveLength(1);
      expect(record.credentials[0]).toMatchObject({
        id: Buffer.from(created!.credentialId, "base64").toString("base64url"),
        transports: ["internal"],
      });

      // No session any more (the authenticator stays with the page): the login hint names alice, FIDO2 comes first.
      await context!.clearCookies();
      await page.goto(web.loginUrl({ login_hint: "alice" }));
      await page.getByRole("button", { name: "Use security key or passkey" }).click();
      await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
      expect(await page.locator("#status").textContent()).toBe("signed in as E10001");
      expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10001", amr: ["fido"], acr: "1fa" });

      // The signature counter the provider keeps is the authenticator's.
      const [used] = await credentialsOf(cdp, authenticatorId);
      const after = (await op.provider.enrollments.get("fido", "E10001"))!.data as FidoEnrollment;
      expect(after.credentials[0]!.counter).toBe(used!.signCount);
      expect(used!.signCount).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "says so when no authenticator answers, and the login can go on after that",
    async () => {
      const { web, op } = suite;
      const { page, cdp, authenticatorId } = await pageWithAuthenticator();
      await signInWithPassword(page, web, "bob");
      await registerOnAccountPage(page, op.issuer);

      // The user does not touch the key: presence is never confirmed, the browser gives up.
      await cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled: false });
      await context!.clearCookies();
      await page.goto(web.loginUrl({ login_hint: "bob" }));
      await page.evaluate(() => {
        // Cancel quickly instead of waiting out the ceremony's timeout.
        const get = navigator.credentials.get.bind(navigator.credentials);
        navigator.credentials.get = (options) => get({ ...options, signal: AbortSignal.timeout(300) });
      });
      await page.getByRole("button", { name: "Use security key or passkey" }).click();
      await expect.poll(() => page.locator("#fido-problem").textContent()).toBe("No security key or passkey answered. Try again.");
      expect(page.url()).toMatch(/\/interaction\//);

      await cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled: true });
      await page.getByRole("button", { name: "Use security key or passkey" }).click();
      await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
      expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10002", amr: ["fido"] });
    },
    TIMEOUT,
  );
});
