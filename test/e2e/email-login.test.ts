import type { BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPage, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import { codeIn } from "../support/code-login.ts";
import { startSmtpTestServer, type SmtpTestServer } from "../support/smtp-test-server.ts";

/**
 * The e-mail code method end to end: Chromium on the login page, the provider sending over SMTP to a
 * real SMTP server on loopback, the code read from the delivered mail, and demo-web (openid-client)
 * verifying the ID token — whose amr must be ["email"].
 */
const SUITE = "e-mail code login (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("e-mail code login in Chromium", () => {
  let suite: MethodSuite;
  let smtp: SmtpTestServer;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    suite = await startMethodSuite({
      methods: ["email"],
      edits: {
        "login.yaml": {
          "methods.email": {
            delivery: { kind: "smtp", host: smtp.host, port: smtp.port, starttls: "never", from: '"Acme sign-in" <no-reply@acme.example>' },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await suite?.close();
    await smtp?.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  it("logs alice in with the code from the mail at her directory address; the ID token's amr is email", async () => {
    const { web, op } = suite;
    const opened = await openPage(suite.browser);
    context = opened.context;
    const { page } = opened;
    await page.goto(web.loginUrl({ login_hint: "alice" }));
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\//);
    expect(smtp.mails).toHaveLength(0); // looking at the page sends nothing

    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByLabel("Code from the e-mail").waitFor();
    expect(await page.getByRole("status").textContent()).toContain("a code is on its way");
    const [mail] = smtp.mailsTo("alice@example.com");
    expect(mail!.subject).toBe("Your verification code");

    await page.getByLabel("Code from the e-mail").fill(codeIn(mail!.text));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
    expect(await page.locator("#status").textContent()).toBe("signed in as E10001");
    expect(web.signIns.at(-1)!.claims).toMatchObject({ iss: op.issuer, aud: "demo-web", sub: "E10001", amr: ["email"], acr: "1fa" });
  });
});
