/**
 * Issue 14's reload demonstration in Chromium: while a browser is mid-login, a client and a login
 * type are edited and the provider reloads; that login finishes on the flow version it started on, the
 * next login runs the new one, and a broken edit is refused while the old policy keeps serving.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { authorizeUrl } from "../support/browser-login.ts";
import { redeemCode, WEB_REDIRECT } from "../support/code-grant.ts";
import { editConfig, startTestProvider, type TestProvider } from "../support/test-provider.ts";

const SUITE = "reload mid-login suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("reloading while a browser is mid-login", () => {
  let browser: Browser;
  let op: TestProvider;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [op, browser] = await Promise.all([startTestProvider(), launchChromium()]);
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await op?.close();
  });

  /** A fresh browser on demo-web's login page; nothing listens on its callback, so the browser is answered there. */
  async function loginPage(): Promise<Page> {
    const context = await newEnglishContext(browser);
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    await context.route(`${new URL(WEB_REDIRECT).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: "text/plain", body: "callback" }),
    );
    const page = await context.newPage();
    await page.goto(authorizeUrl(op.issuer));
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\//);
    return page;
  }

  it("finishes the login in progress on the old version, runs the next on the new, and refuses a broken edit", async () => {
    const midLogin = await loginPage();
    await expect.poll(() => midLogin.content()).toContain("Demo web app");
    await midLogin.getByRole("button", { name: "Password", exact: true }).click();
    await midLogin.getByLabel("User name").fill("alice");
    await midLogin.getByLabel("Password", { exact: true }).fill("alice-password");

    // The edit: demo-web renamed; the default flow without the password method; the 2FA login type without it too.
    editConfig(op.configDir, "clients.yaml", { "clients.0.name": "Demo web app, reloaded" });
    editConfig(op.configDir, "login.yaml", {
      "default_flow.methods": ["appotp", "qrcode"],
      "login_types.2FA.methods": ["qrcode", "appotp", "totp", "fido"],
    });
    expect(await op.reload()).toMatchObject({ ok: true, errors: [] });

    // The login begun before the reload: its password form still signs in (the new default flow has none).
    await midLogin.getByRole("button", { name: "Sign in" }).click();
    await midLogin.waitForURL((url) => url.href.startsWith(WEB_REDIRECT));
    const code = new URL(midLogin.url()).searchParams.get("code");
    expect(code).toBeTruthy();
    const tokens = await redeemCode(op, code!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);

    // The next login: the renamed client, the new flow (no password method offered).
    const next = await loginPage();
    await expect.poll(() => next.content()).toContain("Demo web app, reloaded");
    await next.locator("form").first().waitFor();
    expect(await next.getByRole("button", { name: "Password", exact: true }).count()).toBe(0);
    expect(await next.locator('input[type="password"]').count()).toBe(0);

    // A broken edit (a redirect URI that is not a list): refused, logged with file and line; the policy keeps serving.
    editConfig(op.configDir, "clients.yaml", { "clients.0.name": "Never served", "clients.0.redirect_uris": "not a list" });
    const refused = await op.reload();
    expect(refused.ok).toBe(false);
    expect(op.logs.some((line) => /clients\.yaml:\d+:\d+ clients\[0\]\.redirect_uris/.test(String(line.msg)))).toBe(true);
    const after = await loginPage();
    await expect.poll(() => after.content()).toContain("Demo web app, reloaded");
    expect(await after.content()).not.toContain("Never served");
  }, 120_000);
});
