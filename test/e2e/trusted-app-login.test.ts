import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { startRelyingParty, type RelyingParty, type RpClient } from "../support/relying-party.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { scanAndApprove, shownUri } from "../support/trusted-app-pages.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";

/**
 * The trusted app end to end in Chromium with the reference app (the library): a phone enrolled from
 * the account page, a qrcode login with number matching (the page script long-polls and moves on by
 * itself), an appotp login with the phone's dynamic code, and a QR code that expires and is replaced.
 * demo-web (openid-client) verifies each ID token.
 */
const SUITE = "trusted-app login (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("trusted-app login in Chromium", () => {
  let browser: Browser;
  let rp: RelyingParty;
  let web: RpClient;
  let op: TestProvider;
  let shortLived: TestProvider;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    rp = await startRelyingParty([{ clientId: "demo-web", secret: "demo-web-secret", configIndex: 0 }]);
    web = rp.client("demo-web");
    [op, shortLived, browser] = await Promise.all([
      // The demo's login flow as it ships: qrcode, password, appotp.
      startTestProvider({ edits: { "clients.yaml": rp.configEdits() } }),
      startTestProvider({ edits: { "login.yaml": { "methods.qrcode.challenge_ttl": "3s" } } }),
      launchChromium(),
    ]);
    await rp.connect(op.issuer);
  });
  afterAll(async () => {
    await browser?.close();
    await op?.close();
    await shortLived?.close();
    await rp?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A fresh browser page; CSP violations and script errors are collected. */
  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await newEnglishContext(browser);
    context.setDefaultTimeout(8_000);
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      // A failed load is reported below with its URL.
      if ((m.type() === "error" && !m.text().startsWith("Failed to load resource")) || /Content Security Policy/.test(m.text()))
        problems.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on("pageerror", (e) => problems.push(e.message));
    return { page, problems };
  }

  const statusOf = (page: Page) => page.locator("#status").textContent();
  const qrImageLoaded = (page: Page) =>
    page.locator("img.qrcode").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

  it("enrolls a phone from the account page, which then logs alice in by QR code with number matching; amr is qrcode", async () => {
    // Signed in with the password (the login page starts with the QR code: choose Password).
    const { page: first, problems } = await newPage();
    await first.goto(web.loginUrl());
    await first.getByRole("button", { name: "Password", exact: true }).click();
    await first.getByLabel("User name").fill("alice");
    await first.getByLabel("Password", { exact: true }).fill("alice-password");
    await first.getByRole("button", { name: "Sign in" }).click();
    await first.waitForURL((url) => url.href.startsWith(web.redirectUri));

    // Account page: set up the phone; the page shows the enrollment QR code and its URI.
    await first.goto(`${op.url}/account`);
    await first
      .locator("form")
      .filter({ has: first.locator('button[value="qrcode"]') })
      .getByRole("button")
      .click();
    await first.locator("#qrcode-uri").filter({ hasText: "acmeauth://enroll" }).waitFor();
    expect(await qrImageLoaded(first)).toBe(true);
    const phone = await TrustedAppClient.enroll(await shownUri(first), "Alice's Pixel");
    // The page notices the enrollment and returns to the account page.
    await first.waitForURL(`${op.url}/account?enrolled=qrcode`);
    expect(await first.locator("main").textContent()).toContain("The method is set up.");

    // A new browser: the QR login.
    const { page, problems: loginProblems } = await newPage();
    await page.goto(web.loginUrl());
    expect(await qrImageLoaded(page)).toBe(true);
    await scanAndApprove(page, phone);
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
    expect(await statusOf(page)).toBe("signed in as E10001");
    expect(web.signIns.at(-1)!.claims).toMatchObject({ iss: op.issuer, aud: "demo-web", sub: "E10001", amr: ["qrcode"], acr: "1fa" });
    expect([...problems, ...loginProblems]).toEqual([]);
  });

  it("starts over with a new QR code when the app sends the wrong number", async () => {
    const phone = await enrolledPhone(op, "E10002", "Bob's phone");
    const { page } = await newPage();
    await page.goto(web.loginUrl());
    await page.locator("#qrcode-uri").filter({ hasText: "acmeauth://login" }).waitFor();
    const firstUri = await shownUri(page);
    await phone.scan(firstUri);
    await expect.poll(() => page.locator("#qrcode-number").count(), { timeout: 8_000 }).toBe(1);
    const number = (await page.locator("#qrcode-number").textContent())!.trim();
    await expect(phone.approve(number === "10" ? "11" : "10")).rejects.toMatchObject({ error: "access_denied" });
    await page.getByText("The number entered in the app did not match.").waitFor();
    await page.locator("#qrcode-uri").filter({ hasText: "acmeauth://login" }).waitFor();
    expect(await shownUri(page)).not.toBe(firstUri);
    // The new code works.
    await scanAndApprove(page, phone);
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
    expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10002", amr: ["qrcode"] });
  });

  it("logs alice in with the phone's dynamic code; amr is appotp", async () => {
    const phone = await enrolledPhone(op, "E10001", "Alice's second phone");
    const { page, problems } = await newPage();
    await page.goto(web.loginUrl({ login_hint: "alice" }));
    await page.getByRole("button", { name: "Dynamic code from the mobile app" }).click();
    await page.getByLabel("Code").fill(await phone.code());
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
    expect(await statusOf(page)).toBe("signed in as E10001");
    expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10001", amr: ["appotp"], acr: "1fa" });
    expect(problems).toEqual([]);
  });

  it("replaces an expired QR code by itself, and the old one can no longer be scanned", async () => {
    const phone = await enrolledPhone(shortLived, "E10001", "Alice's phone");
    const { page } = await newPage();
    // No relying party on this provider: its login page is enough (demo-web's registered callback).
    await page.goto(
      `${shortLived.url}/connect/authorize?client_id=demo-web&redirect_uri=http%3A%2F%2Flocalhost%3A3001%2Fcallback&response_type=code&scope=openid&state=s&nonce=n`,
    );
    await page.locator("#qrcode-uri").filter({ hasText: "acmeauth://login" }).waitFor();
    const firstUri = await shownUri(page);
    const firstImage = await page.locator("img.qrcode").getAttribute("src");
    // After 3 s the page posts REFRESH and shows a new code (and image) without a click.
    await expect.poll(async () => (await page.locator("#qrcode-uri").textContent()) ?? "", { timeout: 10_000 }).not.toBe(firstUri);
    await page.locator("#qrcode-uri").filter({ hasText: "acmeauth://login" }).waitFor();
    expect(await page.locator("img.qrcode").getAttribute("src")).not.toBe(firstImage);
    expect(await qrImageLoaded(page)).toBe(true);
    await expect(phone.scan(firstUri)).rejects.toMatchObject({ status: 400, error: "invalid_grant" });
    // The new one scans.
    await phone.scan(await shownUri(page));
    await expect.poll(() => page.locator("#qrcode-number").count(), { timeout: 8_000 }).toBe(1);
  });
});
