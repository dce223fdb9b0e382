/**
 * The trusted app's login steps on a real page (Chromium): the reference app (the library under
 * src/cli/reference-app/) reads the QR code's URI from the page, as a phone's camera would, scans it
 * and approves with the number the page then shows.
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";

/** The acmeauth:// URI the page script shows under the QR code (what a phone's camera would read). */
export async function shownUri(page: Page): Promise<string> {
  return (await page.locator("#qrcode-uri").textContent({ timeout: 8_000 }))!;
}

/** Scans the login page's QR code with `phone` and approves with the number the page then shows. */
export async function scanAndApprove(page: Page, phone: TrustedAppClient): Promise<void> {
  await page.locator("#qrcode-uri").filter({ hasText: "acmeauth://login" }).waitFor();
  await phone.scan(await shownUri(page));
  // No click: the page script notices the scan and shows the device and the number.
  await expect.poll(() => page.locator("#qrcode-number").count(), { timeout: 8_000 }).toBe(1);
  expect(await page.locator("main").textContent()).toContain(`Scanned by ${phone.state.name}.`);
  await phone.approve((await page.locator("#qrcode-number").textContent())!.trim());
}
