import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_PATH, chromiumAvailable } from "../support/chromium.ts";
import { authorizeUrl } from "../support/browser-login.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Chromium with every cookie blocked (the content setting a user turns on under "Cookies and other
 * site data": block all), in a profile of its own, against a real provider.
 */
const SUITE = "cookies-blocked suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("signing in with cookies blocked in Chromium", () => {
  let op: TestProvider;
  let profile: string;
  let context: BrowserContext;

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), "portcullis-chromium-"));
    mkdirSync(join(profile, "Default"));
    writeFileSync(join(profile, "Default", "Preferences"), JSON.stringify({ profile: { default_content_setting_values: { cookies: 2 } } }));
    op = await startTestProvider();
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: ["--no-sandbox", "--disable-background-networking"],
      locale: "en-US",
    });
  });
  afterAll(async () => {
    await context?.close();
    await op?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it("says that cookies are needed instead of 'no longer valid'", async () => {
    const page = await context.newPage();
    const answer = await page.goto(authorizeUrl(op.issuer, { lang: "vn" }));
    expect(answer?.status()).toBe(400);
    expect(new URL(page.url()).searchParams.get("cookie_check")).toBe("1");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Cần bật cookie để đăng nhập");
    await expect(page.getByRole("alert").textContent()).resolves.toContain("cho phép cookie");
    expect(await context.cookies()).toEqual([]);
  });
});
