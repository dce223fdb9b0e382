import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, openLoginPage, submitPassword } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * SPEC (Limits: iframe_authz in IE) has old IE embed the login: the layout's head asks for edge mode.
 * IE ignores X-UA-Compatible after any head element but <title> and other <meta>s, so the test checks
 * its place (among the first <meta>s) as well as its presence, on pages served over HTTP.
 */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

const EDGE_MODE = '<meta http-equiv="X-UA-Compatible" content="IE=edge">';

/** The head of a page, which must hold the edge-mode meta with only <meta>s before it. */
function expectEdgeModeEarly(html: string): void {
  const head = /<head>([\s\S]*?)<\/head>/.exec(html)?.[1];
  expect(head, html.slice(0, 500)).toBeDefined();
  const at = head!.indexOf(EDGE_MODE);
  expect(at, head).toBeGreaterThanOrEqual(0);
  expect(
    head!
      .slice(0, at)
      .replace(/<meta [^>]*>/g, "")
      .trim(),
    head,
  ).toBe("");
}

describe("IE edge mode", () => {
  it("is asked for early in the head of the login page", async () => {
    expectEdgeModeEarly((await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer))).text);
  });

  it("is asked for on the iframe_authz login page and on the page that leaves the iframe", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer, {}, "/connect/iframe_authz"));
    expectEdgeModeEarly(page.text);
    const done = await submitPassword(browser, page, "alice", "alice-password");
    expect(done.text).toContain("window.top");
    expectEdgeModeEarly(done.text);
  });
});
