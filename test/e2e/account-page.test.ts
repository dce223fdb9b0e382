import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { METHODS_DIR } from "../../src/runtime/method-plugins.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { LANGS, type Lang } from "../../src/i18n/lang.ts";

/**
 * The account page in Chromium, in the five languages: alice signs in on the page itself, with some
 * methods enrolled beforehand, and the page's blocks, states and actions are found by their roles
 * and translated names. Screenshots go to test/e2e/screenshots/ (git-ignored) for a person to look at.
 */
const SUITE = "account page suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
const SCREENSHOTS = join(import.meta.dirname, "screenshots");
const ALICE = "E10001";
const METHODS = ["password", "qrcode", "appotp", "totp", "fido", "sms", "email", "face", "bfido"];

/** The UI strings of a language: the core ones and every method's (as `method.<id>.<key>`). */
function stringsOf(lang: Lang): Record<string, string> {
  const strings = parse(readFileSync(join(VIEWS_DIR, "i18n", `${lang}.yaml`), "utf8")) as Record<string, string>;
  for (const id of METHODS) {
    const own = parse(readFileSync(join(METHODS_DIR, id, "i18n", `${lang}.yaml`), "utf8")) as Record<string, string>;
    for (const [key, value] of Object.entries(own)) strings[`method.${id}.${key}`] = value;
  }
  return strings;
}
const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (_m, name: string) => values[name]!);

describe.skipIf(!haveChromium)("the account page in Chromium", () => {
  let browser: Browser;
  let op: TestProvider;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [op, browser] = await Promise.all([startTestProvider(), launchChromium()]);
    const day = Date.parse("2026-10-02T09:00:00Z");
    const enrollments = op.provider.enrollments;
    await enrollments.put("qrcode", ALICE, { devices: [{ id: "d1", name: "Pixel 8", publicJwk: {}, createdAt: day }] });
    await enrollments.put("sms", ALICE, { target: "+447700900123", confirmedAt: day });
    await enrollments.put("fido", ALICE, {
      userHandle: "h",
      credentials: [
        {
          id: "c",
          publicKey: "k",
          counter: 0,
          transports: [],
          deviceType: "multiDevice",
          backedUp: true,
          aaguid: "0",
          createdAt: day,
          lastUsedAt: day,
        },
      ],
    });
    await enrollments.put("face", ALICE, { key: "ref-1" });
    context = await newEnglishContext(browser);
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error" || /Content Security Policy/.test(m.text())) problems.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on("pageerror", (e) => problems.push(e.message));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await op?.close();
  });

  it("signs in on the page itself and comes back to it", async () => {
    await page.goto(`${op.url}/account?lang=en&client_id=demo-web`);
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Password", exact: true }).click();
    await page.getByLabel("User name").fill("alice");
    await page.getByLabel("Password", { exact: true }).fill("alice-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/account\?lang=en&client_id=demo-web$/);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Your sign-in methods");
  });

  it.each(LANGS)("shows every method with its state and actions in %s", async (lang) => {
    const t = stringsOf(lang);
    await page.goto(`${op.url}/account?lang=${lang}&client_id=demo-web`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(t["account.title"]);
    await expect(page.locator(".signed-in-as").textContent()).resolves.toBe(fill(t["account.signed_in_as"]!, { user: "Alice Chen" }));
    const headings = await page.getByRole("heading", { level: 2 }).allTextContents();
    expect(headings).toEqual(METHODS.map((id) => t[`method.${id}.label`]));
    const row = (id: string) => page.locator(`#method-${id}`);
    const setUp = new Set(["password", "qrcode", "appotp", "fido", "sms", "face"]);
    for (const id of METHODS) {
      await expect(row(id).locator(".state").textContent(), id).resolves.toBe(
        setUp.has(id) ? t["account.state_on"] : t["account.not_enrolled"],
      );
    }
    // Actions where the user manages the method; a note where someone else does.
    for (const id of ["qrcode", "fido", "sms"]) {
      expect(await row(id).getByRole("button", { name: t["account.remove"], exact: true }).count(), id).toBe(1);
      const again = id === "sms" ? t["account.enroll_again"] : t["account.add_another"];
      expect(await row(id).getByRole("button", { name: again, exact: true }).count(), id).toBe(1);
    }
    for (const id of ["totp", "email"]) {
      expect(await row(id).getByRole("button", { name: t["account.enroll"], exact: true }).count(), id).toBe(1);
      expect(await row(id).getByRole("button", { name: t["account.remove"], exact: true }).count(), id).toBe(0);
    }
    for (const [id, note] of [
      ["password", t["account.setup_directory"]],
      ["face", t["account.setup_administrator"]],
      ["bfido", t["account.setup_app"]],
      ["appotp", fill(t["account.setup_with"]!, { method: t["method.qrcode.label"]! })],
    ] as const) {
      await expect(row(id).locator(".hint").textContent(), id).resolves.toBe(note);
      expect(await row(id).getByRole("button").count(), id).toBe(0);
    }
    // What is enrolled, masked where sensitive.
    await expect(row("qrcode").getByRole("listitem").first().textContent()).resolves.toMatch(/^Pixel 8 /);
    await expect(row("sms").getByRole("listitem").first().textContent()).resolves.toContain(
      fill(t["method.sms.account_number"]!, { digits: "0123" }),
    );
    await expect(row("fido").getByRole("listitem").first().textContent()).resolves.toContain(t["method.fido.account_passkey"]);
    expect(await page.content()).not.toContain("7700900");
    await expect(row("password").getByRole("definition").last().textContent()).resolves.not.toBe(t["account.not_used"]);
    // The ways out.
    expect(
      await page
        .getByRole("navigation")
        .getByRole("link", { name: fill(t["account.back_to"]!, { client: "Demo web app" }) })
        .getAttribute("href"),
    ).toBe("http://localhost:3001/");
    expect(await page.getByRole("navigation").getByRole("link", { name: t["account.sign_out"] }).getAttribute("href")).toBe(
      `/connect/endsession?lang=${lang}`,
    );
    await page.screenshot({ path: join(SCREENSHOTS, `account-${lang}.png`), fullPage: true });
  });

  it("fits a phone's screen without sideways scrolling, in the dark scheme too", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      await page.goto(`${op.url}/account?lang=vn&client_id=demo-web`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await page.screenshot({ path: join(SCREENSHOTS, "account-vn-phone-dark.png"), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.emulateMedia({ colorScheme: "light" });
    }
  });

  it("asks before removing a method, then removes it and says so", async () => {
    await page.goto(`${op.url}/account?lang=en`);
    await page.locator("#method-sms").getByRole("button", { name: "Remove" }).click();
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Remove “Code by text message (SMS)”?");
    await page.screenshot({ path: join(SCREENSHOTS, "account-remove-en.png"), fullPage: true });
    expect(await op.provider.enrollments.get("sms", ALICE)).toBeDefined();
    await page.getByRole("button", { name: "Remove" }).click();
    await expect(page.getByRole("status").textContent()).resolves.toBe("The method is removed.");
    await expect(page.locator("#method-sms .state").textContent()).resolves.toBe("Not set up");
    expect(await op.provider.enrollments.get("sms", ALICE)).toBeUndefined();
  });

  it("loaded every resource (stylesheet, icon) without an error or a CSP violation", () => {
    expect(problems).toEqual([]);
  });
});
