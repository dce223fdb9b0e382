/**
 * The people of the custom QR-code login in Chromium: the PC browser on a page with the provider's
 * script, the phone (the reference trusted app scans; the phone's browser opens the mobile page), and
 * an auditor answering from the channel service's inbox. Each is a context of its own (own cookies).
 * Every wait is for a condition, with limits far above what a busy machine needs: the pages long-poll.
 */
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { parse } from "yaml";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { newEnglishContext } from "./chromium.ts";

/** Long enough for any page, poll or 303 chain on a loaded machine; never a measure of speed. */
export const WAIT_MS = 60_000;

const EN = parse(readFileSync(new URL("../../views/i18n/en.yaml", import.meta.url), "utf8")) as Record<string, string>;

/** The script's default prompts in English (the contexts ask for en-US), by the SPEC's option names. */
export const PROMPTS = {
  scanPrompt: EN["custom-login.scan_prompt"]!,
  s0Prompt: EN["custom-login.s0_prompt"]!,
  s5Prompt: EN["custom-login.s5_prompt"]!,
  sn10Prompt: EN["custom-login.sn10_prompt"]!,
  s10Prompt: EN["custom-login.s10_prompt"]!,
};

/** The decoded `custom_scan` claim. */
export interface CustomScan {
  st: string;
  aud: string;
  lt: string;
  et: string;
}

/** Opens the contexts of one test; `closeAll()` (the suite's afterEach) ends them. */
export class BrowserParties {
  private readonly browser: () => Browser;
  private readonly contexts: BrowserContext[] = [];
  /** Script errors and refused loads on any page, so a broken page fails the test that saw it. */
  readonly problems: string[] = [];

  constructor(browser: () => Browser) {
    this.browser = browser;
  }

  /** A fresh context (a person's own browser) on `url`. */
  async open(url: string): Promise<Page> {
    const context = await newEnglishContext(this.browser());
    context.setDefaultTimeout(WAIT_MS);
    this.contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (error) => this.problems.push(`${page.url()}: ${error.message}`));
    page.on("console", (m) => {
      if (/Content Security Policy|AcmeSSO:/.test(m.text())) this.problems.push(`${page.url()}: ${m.text()}`);
    });
    await page.goto(url);
    return page;
  }

  /** The PC browser on a page that embeds the script, once the QR code is drawn with its prompt. */
  async openQrPage(url: string): Promise<Page> {
    const page = await this.open(url);
    await page.locator("img.acme-sso-qr").waitFor({ state: "visible" });
    await waitForPrompt(page, PROMPTS.scanPrompt);
    return page;
  }

  /**
   * The phone scans the QR code the page shows: the trusted app opens its link (a silent login) and
   * the phone's browser follows the provider's redirect to the mobile page.
   */
  async scan(pcPage: Page, phone: TrustedAppClient): Promise<Page> {
    const { status, location } = await phone.sso(await qrLink(pcPage));
    expect(status, location).toBe(303);
    return this.open(location!);
  }

  /**
   * The auditor follows the newest approval link in their inbox (the inbox reloads itself until the
   * message is in) and answers on the approval page.
   */
  async answerApproval(channelUrl: string, account: string, decision: "Approve" | "Refuse"): Promise<void> {
    const page = await this.open(`${channelUrl}/messages?to=${encodeURIComponent(account)}`);
    // goto, not a click: the inbox's own reload must not race the click's navigation.
    const link = await page.getByRole("link", { name: "Open the approval page" }).first().getAttribute("href");
    await page.goto(new URL(link!, page.url()).href);
    await page.getByRole("button", { name: decision }).click();
    await page.getByText(`Thank you: you ${decision === "Approve" ? "approved" : "refused"} the sign-in`).waitFor();
  }

  async closeAll(): Promise<void> {
    for (const context of this.contexts.splice(0)) await context.close();
    this.problems.splice(0);
  }
}

/** The link the page's QR code encodes (the script keeps it in `data-uri`). */
export async function qrLink(page: Page): Promise<string> {
  const link = await page.locator("img.acme-sso-qr").getAttribute("data-uri");
  expect(link).toBeTruthy();
  return link!;
}

/** Waits until the script shows exactly this prompt. */
export async function waitForPrompt(page: Page, prompt: string): Promise<void> {
  await page.waitForFunction((text) => document.querySelector(".acme-sso-prompt")?.textContent === text, prompt, { timeout: WAIT_MS });
}

/** Every `<dt>` of the page with its `<dd>`'s text (the first of each name). */
export async function definitions(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const found: Record<string, string> = {};
    for (const dt of Array.from(document.querySelectorAll("dt"))) {
      const name = dt.textContent ?? "";
      if (!(name in found)) found[name] = dt.nextElementSibling?.textContent ?? "";
    }
    return found;
  });
}

/** The ID token's `custom_scan` as the landing page shows it, decoded (standard base64 of JSON). */
export async function customScanOn(page: Page): Promise<CustomScan> {
  const claim = (await page.locator("code.custom-scan-claim").textContent()) ?? "";
  expect(claim).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  return JSON.parse(Buffer.from(claim, "base64").toString("utf8")) as CustomScan;
}

/** The channels the selector page offers, by id, in its order. */
export function offeredChannels(selector: Page): Promise<string[]> {
  return selector.locator('button[name="channel"]').evaluateAll((buttons) => buttons.map((b) => (b as HTMLButtonElement).value));
}
