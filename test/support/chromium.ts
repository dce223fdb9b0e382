/**
 * The real browser of the e2e suites: Debian's `chromium` driven by playwright-core (DESIGN "Tests").
 * A suite that needs it asks `chromiumAvailable(name)` at load time and skips itself when it answers
 * false (`describe.skipIf`); the missing package is announced in one loud line, and under CI (which
 * installs everything) a missing browser fails the run instead of skipping.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { unavailable } from "./require-service.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** True when Debian's chromium is installed; otherwise says so loudly (and throws under CI). */
export function chromiumAvailable(suite: string): boolean {
  return existsSync(CHROMIUM_PATH) || unavailable(suite, `${CHROMIUM_PATH} missing (apt-get install chromium)`);
}

/** One headless Chromium per test file; tests open their own contexts (own cookie jars). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox", "--disable-background-networking"] });
}

/** A fresh context (no cookies) with English pages, so the tests can find controls by their labels. */
export function newEnglishContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ locale: "en-US" });
}
