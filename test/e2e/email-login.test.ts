import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { codeIn } from "../support/code-login.ts";
import { startRelyingParty, type RelyingParty, type RpClient } from "../support/relying-party.ts";
import { startSmtpTestServer, type SmtpTestServer } from "../support/smtp-test-server.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * The e-mail code method end to end: Chromium on the login page, the provider sending over SMTP to a
 * real SMTP server on loopback, the code read from the delivered mail, and demo-web (openid-client)
 * verifying the ID token — whose amr must be ["email"].
 */
const SUITE = "e-mail code login (Chromium)";
const haveChromium = chromiumAvailable(SUITE);

describe.skipIf(!haveChromium)("e-mail code login in Chromium", () => {
  let browser: Browser;
  let rp: RelyingParty;
  let web: RpClient;
  let smtp: SmtpTestServer;
  let op: TestProvider;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    [rp, smtp] = await Promise.all([startRelyingParty([{ clientId: "demo-web", secret: "demo-web-secret", configIndex: 0 }]), startSmtpTestServer()]);
    web = rp.client("demo-web");
    [op, browser] = await Promise.all([
      startTestProvider({
        edits: {
          "clients.yaml": rp.configEdits(),
          "login.yaml": {
            "methods.email": { delivery: { kind: "smtp", host: smtp.host, port: smtp.port, starttls: "never", from: '"Acme sign-in" <no-reply@acme.example>' } },
            "default_flow.methods": ["email"],
          },
        },
      }),
      launchChromium(),
    ]);
    await rp.connect(op.issuer);
  });
  afterAll(async () => {
    await browser?.close();
    await op?.close();
    await rp?.close();
    await smtp?.close();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  it("logs alice in with the code from the mail at her directory address; the ID token's amr is email", async () => {
    context = await newEnglishContext(browser);
    context.setDefaultTimeout(8_000);
    const page = await context.newPage();
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
