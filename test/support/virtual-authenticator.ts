/**
 * FIDO2 in Chromium: the DevTools virtual authenticator, a platform authenticator with user
 * verification that answers by itself (automatic presence). It lives as long as the page it is
 * attached to, with the credentials registered on it.
 */
import type { CDPSession, Page } from "playwright-core";
import { setUpOnAccountPage } from "./browser-methods.ts";

export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

/** Attaches a virtual authenticator to `page`. */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/**
 * Registers the page's authenticator for the signed-in user from the account page ("Set up", then
 * "Register security key or passkey"); ends back on the account page.
 */
export async function registerOnAccountPage(page: Page, issuerUrl: string): Promise<void> {
  await setUpOnAccountPage(page, issuerUrl, "Security key or passkey");
  await page.getByRole("button", { name: "Register security key or passkey" }).click();
  await page.waitForURL((url) => url.pathname === "/account");
}
