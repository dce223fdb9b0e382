/**
 * Factor methods in Chromium: a provider and a relying party (demo-web) for a login flow that offers
 * the given methods, the password sign-in that gives a browser its SSO session, and "Set up" on the
 * account page. For the e2e suites of the factor methods (test/e2e/<method>-login.test.ts).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { launchChromium, newEnglishContext } from "./chromium.ts";
import { startRelyingParty, type RelyingParty, type RpClient, type RpClientOptions } from "./relying-party.ts";
import { freePort } from "./services.ts";
import type { Clock } from "../../src/time/clock.ts";
import { startTestProvider, type TestProvider, type TestProviderOptions } from "./test-provider.ts";

/** demo-web as the suite's relying party serves it. */
export const DEMO_WEB_RP: RpClientOptions = { clientId: "demo-web", secret: "demo-web-secret", configIndex: 0 };

export interface MethodSuite {
  op: TestProvider;
  rp: RelyingParty;
  /** demo-web, a confidential client served by `rp`. */
  web: RpClient;
  browser: Browser;
  close(): Promise<void>;
}

export interface MethodSuiteOptions {
  /** default_flow.methods of login.yaml: the first one is what a new login shows. */
  methods: string[];
  /**
   * Serve the provider as http://localhost:<port> instead of 127.0.0.1: WebAuthn needs a host name
   * (browsers refuse IP addresses as RP ids), and the RP id defaults to the issuer's host.
   */
  localhost?: boolean;
  /** The relying party's clients (default: demo-web alone); demo-web must be one of them. */
  clients?: RpClientOptions[];
  /** More config edits (merged per file). */
  edits?: TestProviderOptions["edits"];
  /** How to start the browser (default: launchChromium; the face suite's needs a fake camera). */
  launch?: () => Promise<Browser>;
  /** The provider's clock (a test moves it); the system clock otherwise. */
  clock?: Clock;
}

export async function startMethodSuite(options: MethodSuiteOptions): Promise<MethodSuite> {
  const rp = await startRelyingParty(options.clients ?? [DEMO_WEB_RP]);
  const edits: Record<string, Record<string, unknown>> = { ...options.edits };
  edits["clients.yaml"] = { ...rp.configEdits(), ...edits["clients.yaml"] };
  edits["login.yaml"] = { "default_flow.methods": options.methods, ...edits["login.yaml"] };
  let issuer: string | undefined;
  if (options.localhost) {
    const port = await freePort();
    issuer = `http://localhost:${port}`;
    edits["provider.yaml"] = { "listen.port": port, ...edits["provider.yaml"] };
  }
  const [op, browser] = await Promise.all([
    startTestProvider({ edits, ...(issuer && { issuer }), ...(options.clock && { clock: options.clock }) }),
    (options.launch ?? launchChromium)(),
  ]);
  await rp.connect(op.issuer);
  return {
    op,
    rp,
    web: rp.client("demo-web"),
    browser,
    async close() {
      await browser.close();
      await op.close();
      await rp.close();
    },
  };
}

/** A fresh English context whose actions fail within a test's time with Playwright's own message. */
export async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newEnglishContext(browser);
  context.setDefaultTimeout(8_000);
  return { context, page: await context.newPage() };
}

/** A browser context per test: `page()` opens one, `close()` (the suite's afterEach) ends the last one opened. */
export class ContextPerTest {
  private readonly browser: () => Browser;
  context: BrowserContext | undefined;
  constructor(browser: () => Browser) {
    this.browser = browser;
  }

  async page(): Promise<Page> {
    const opened = await openPage(this.browser());
    this.context = opened.context;
    return opened.page;
  }

  async close(): Promise<void> {
    await this.context?.close();
    this.context = undefined;
  }
}

/**
 * Logs in at the client with the password method, switching to it when the flow starts with another
 * (the browser then has an SSO session, as the account page needs). Ends on the client's callback.
 */
export async function signInWithPassword(
  page: Page,
  client: RpClient,
  username = "alice",
  password = `${username}-password`,
): Promise<void> {
  await page.goto(client.loginUrl());
  await submitPasswordForm(page, username, password);
  await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
  expect(await page.locator("#status").textContent()).toMatch(/^signed in as /);
}

/** Fills and submits the password form of the login page shown, choosing the password method first when the page shows another. */
export async function submitPasswordForm(page: Page, username: string, password = `${username}-password`): Promise<void> {
  if ((await page.locator('input[name="password"]').count()) === 0) await page.locator('.other-methods button[value="password"]').click();
  await page.getByLabel("User name").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/**
 * The methods a login page offers: the one it shows (the `method-<id>` class of its method partial)
 * and the ones its "Choose another method" buttons switch to, in order.
 */
export async function methodsOffered(page: Page): Promise<{ shown: string | undefined; others: string[] }> {
  const shownClass = await page.locator("section.method .method").first().getAttribute("class");
  return { shown: /\bmethod-([a-z0-9]+)/.exec(shownClass ?? "")?.[1], others: await otherMethodsOffered(page) };
}

/** The methods the login page offers to switch to ("Choose another method"), in order. */
export function otherMethodsOffered(page: Page): Promise<string[]> {
  return page.locator(".other-methods button[name=method]").evaluateAll((buttons) => buttons.map((b) => (b as HTMLButtonElement).value));
}

/** Waits for `client`'s callback; its status line and the authorization response's parameters. */
export async function atCallback(page: Page, client: RpClient): Promise<{ status: string | null; response: URLSearchParams }> {
  await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
  return { status: await page.locator("#status").textContent(), response: new URL(page.url()).searchParams };
}

/** Opens the account page and presses "Set up" in the row of the method labelled `label`; the enrollment page. */
export async function setUpOnAccountPage(page: Page, issuerUrl: string, label: string): Promise<void> {
  await page.goto(`${issuerUrl}/account`);
  await page
    .locator("li.method-row", { has: page.locator(".method-name", { hasText: label }) })
    .getByRole("button", { name: "Set up" })
    .click();
  await page.waitForURL((url) => url.pathname.startsWith("/interaction/"));
}
