import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * The diagram pages in Debian's Chromium against a real provider with the demo configuration:
 * mermaid, loaded under the page's nonce, turns the Mermaid source into an SVG of the login flow,
 * styled (the CSP allows the SVG's inline styles) and without a CSP violation; and every machine
 * the provider lists is drawn without a Mermaid syntax error.
 */
const SUITE = "diagram pages suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("diagram pages in Chromium", () => {
  let browser: Browser;
  let op: TestProvider;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    [op, browser] = await Promise.all([startTestProvider(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await op?.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  /** A page that records CSP violations and script errors. */
  async function openPage(): Promise<{ page: Page; violations: string[]; errors: string[] }> {
    context = await newEnglishContext(browser);
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const violations: string[] = [];
    const errors: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) violations.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    return { page, violations, errors };
  }

  /** Waits until mermaid has replaced the source with its drawing; returns what the SVG shows (states: boxes and composite states). */
  async function drawing(page: Page) {
    await page.locator("pre.mermaid[data-processed] svg").waitFor();
    return page.evaluate(() => {
      const svg = document.querySelector("pre.mermaid svg")!;
      const node = svg.querySelector("g.node rect, g.node path")!;
      return {
        text: svg.textContent ?? "",
        states: [...svg.querySelectorAll("g.node, .cluster-label")].map((g) => g.textContent?.trim()).filter(Boolean),
        edgeLabels: [...svg.querySelectorAll(".edgeLabel")].map((e) => e.textContent?.trim()).filter(Boolean),
        nodeFill: node ? getComputedStyle(node).fill : "",
        syntaxError: svg.getAttribute("aria-roledescription") === "error" || /Syntax error/.test(svg.textContent ?? ""),
      };
    });
  }

  /**
   * Draws Mermaid source in place of the page's diagram with the page's own mermaid: the source given,
   * or the one in another diagram page's HTML. Returns mermaid's complaint, if it had one.
   */
  function drawInPlace(page: Page, from: { source: string } | { pageHtml: string }): Promise<string | undefined> {
    return page.evaluate(async (given) => {
      const source =
        "source" in given
          ? given.source
          : new DOMParser().parseFromString(given.pageHtml, "text/html").querySelector("pre.mermaid")!.textContent!;
      const fresh = document.createElement("pre");
      fresh.className = "mermaid";
      fresh.textContent = source;
      document.querySelector("pre.mermaid")!.replaceWith(fresh);
      try {
        await (window as unknown as { mermaid: { run(options: { nodes: Element[] }): Promise<void> } }).mermaid.run({ nodes: [fresh] });
        return undefined;
      } catch (error) {
        return (error as { message?: string }).message ?? String(error);
      }
    }, from);
  }

  it("draws the login flow as an SVG, styled, under the page's CSP", async () => {
    const { page, violations, errors } = await openPage();
    await page.goto(`${op.url}/diagrams`);
    await page.getByRole("link", { name: "login", exact: true }).click();
    await page.waitForURL(`${op.url}/diagrams/login`);
    const drawn = await drawing(page);
    expect(drawn.syntaxError).toBe(false);
    for (const id of op.provider.policies.current().config.login.default_flow.methods) expect(drawn.states).toContain(id);
    expect(drawn.states).toContain("authenticated");
    expect(drawn.edgeLabels.some((label) => label!.startsWith("CHOOSE_METHOD [isChosenMethod(method="))).toBe(true);
    expect(drawn.edgeLabels.some((label) => label!.startsWith("done: "))).toBe(true);
    // mermaid's stylesheet applied: without it (style-src 'self' alone) a state is a black box.
    expect(drawn.nodeFill).not.toBe("rgb(0, 0, 0)");
    expect(drawn.nodeFill).not.toBe("");
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("draws every machine the provider lists without a syntax error", async () => {
    const { page, violations, errors } = await openPage();
    await page.goto(`${op.url}/diagrams`);
    const links = await page.locator(".diagram-list a").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(links.length).toBeGreaterThanOrEqual(4);
    await page.goto(links[0]!);
    await drawing(page);
    // Each page's own Mermaid source, drawn in place by the mermaid the first page loaded: the same
    // library and settings as a page load, without parsing its 5 MB bundle once per machine (that
    // took two thirds of this test's time). The first test above draws a page as loaded.
    for (const link of links) {
      const html = await (await fetch(link)).text();
      expect(await drawInPlace(page, { pageHtml: html }), link).toBeUndefined();
      const drawn = await drawing(page);
      expect(drawn.syntaxError, link).toBe(false);
      expect(drawn.states.length, link).toBeGreaterThanOrEqual(2);
    }
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);

  it("draws the login types' flows of docs/diagrams (2FA, Mfa, MyVendor) without a syntax error, each method switch once", async () => {
    const { page, violations, errors } = await openPage();
    await page.goto(`${op.url}/diagrams/login`);
    await drawing(page);
    for (const name of ["login-2fa", "login-mfa", "login-myvendor"]) {
      const source = readFileSync(join(import.meta.dirname, "../../docs/diagrams", `${name}.md`), "utf8")
        .split("```mermaid\n")[1]!
        .split("```")[0]!;
      expect(await drawInPlace(page, { source }), name).toBeUndefined();
      const drawn = await drawing(page);
      expect(drawn.syntaxError, name).toBe(false);
      expect(drawn.states, name).toContain("authenticated");
      expect(
        drawn.edgeLabels.some((label) => label!.startsWith("CHOOSE_METHOD [isChosenMethod(method=")),
        name,
      ).toBe(true);
      // One switch per group: 2FA's three (first factor, trusted, untrusted) and the one from its identify
      // step's form into the first factor; the second-factor flows' one.
      expect(source.match(/CHOOSE_METHOD/g), name).toHaveLength(name === "login-2fa" ? 4 : 1);
    }
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);

  it("shows the source as text where script is off", async () => {
    context = await browser.newContext({ locale: "en-US", javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${op.url}/diagrams/method-password`);
    expect(await page.locator("pre.mermaid").textContent()).toContain(
      "s_awaitingCredentials --> s_verifying : SUBMIT_PASSWORD [hasCredentials]",
    );
    expect(await page.locator("pre.mermaid svg").count()).toBe(0);
  });
});
