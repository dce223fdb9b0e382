import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPage, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import { codeIn } from "../support/code-login.ts";
import { startSmsTestGateway, type SmsTestGateway } from "../support/sms-test-gateway.ts";

/**
 * The SMS code method end to end in Chromium, against an SMS gateway on loopback: alice signs in with
 * her password, confirms her phone number on the account page (code read from the gateway), then —
 * in a fresh browser — logs in with an SMS code; demo-web verifies an ID token with amr ["sms"].
 */
const SUITE = "SMS code login (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
const PHONE = "+447700900123";

describe.skipIf(!haveChromium)("SMS code login in Chromium", () => {
  let suite: MethodSuite;
  let gateway: SmsTestGateway;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    gateway = await startSmsTestGateway();
    suite = await startMethodSuite({
      methods: ["password", "sms"],
      edits: { "login.yaml": { "methods.sms": { delivery: { kind: "http", url: `${gateway.url}/v1/messages` } } } },
    });
  });
  afterAll(async () => {
    await suite?.close();
    await gateway?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function newPage(): Promise<Page> {
    const { context, page } = await openPage(suite.browser);
    contexts.push(context);
    return page;
  }
  const lastCode = () => codeIn(gateway.messagesTo(PHONE).at(-1)!.text);

  it("confirms alice's phone on the account page, then logs her in with an SMS code; the ID token's amr is sms", async () => {
    const { web, op } = suite;
    // Signed in with the password, on the account page.
    const first = await newPage();
    await first.goto(web.loginUrl({ login_hint: "alice" }));
    await first.getByLabel("Password", { exact: true }).fill("alice-password");
    await first.getByRole("button", { name: "Sign in" }).click();
    await first.waitForURL((url) => url.href.startsWith(web.redirectUri));
    await first.goto(`${op.url}/account`);
    await first.locator('button[name="method"][value="sms"]').click();

    // Phone confirmation.
    await first.getByLabel("Mobile phone number").fill("+44 7700 900123");
    await first.getByRole("button", { name: "Send code" }).click();
    await first.getByText(`We sent a code to ${PHONE}.`).waitFor();
    await first.getByLabel("Code from the text message").fill(lastCode());
    await first.getByRole("button", { name: "Confirm number" }).click();
    await first.waitForURL((url) => url.pathname === "/account");
    expect(await first.getByRole("status").first().textContent()).toContain("The method is set up.");

    // A fresh browser: the SMS method from the login page's method list.
    const page = await newPage();
    await page.goto(web.loginUrl({ login_hint: "alice" }));
    await page.getByRole("button", { name: "Code by text message (SMS)" }).click();
    const before = gateway.messagesTo(PHONE).length;
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByLabel("Code from the text message").waitFor();
    expect(gateway.messagesTo(PHONE)).toHaveLength(before + 1);
    await page.getByLabel("Code from the text message").fill(lastCode());
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
    expect(await page.locator("#status").textContent()).toBe("signed in as E10001");
    expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10001", amr: ["sms"], acr: "1fa" });
  });
});
