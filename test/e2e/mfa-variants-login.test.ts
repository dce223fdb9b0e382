import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/crypto/password-hash.ts";
import { SESSION_COOKIE } from "../../src/sessions/session-cookie.ts";
import {
  atCallback,
  ContextPerTest,
  methodsOffered,
  signInWithPassword,
  startMethodSuite,
  type MethodSuite,
} from "../support/browser-methods.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import { passWithCode, startEmailDelivery, startSmsDelivery, type CodeDelivery } from "../support/code-deliveries.ts";
import { extraUsers } from "../support/method-pages.ts";
import { scanAndApprove } from "../support/trusted-app-pages.ts";
import { addVirtualAuthenticator, registerOnAccountPage } from "../support/virtual-authenticator.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";

/**
 * The Mfa variants that fix the second factor (SPEC "login_type rules" 3), each through the real pages
 * in Chromium with demo-web (openid-client) as the relying party — MfaTotp has its own tests in
 * login-policy.test.ts. A third party did the first factor, so the authorize request names the user in
 * login_hint, and for every variant: the page says whose login it is (masked), offers exactly the
 * variant's methods and no password; the user passes the method — the reference trusted app scans the
 * QR code or shows its dynamic code, the DevTools virtual authenticator answers FIDO2, the code arrives
 * at an SMS gateway or SMTP server on loopback; the code comes back with login_type; the RP's token
 * request without login_type is refused and the one that repeats it gets tokens whose amr is the
 * method; and no SSO session is left: a plain authorize request asks for a login.
 *
 * The provider runs as http://localhost:<port> (browsers refuse IP addresses as WebAuthn RP ids). Each
 * variant has a user of its own: single-use state (the app's code per time step) is per user.
 */
const SUITE = "Mfa variants login suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
/** A provider, two delivery servers and a browser on a busy machine: generous, never a measure of speed. */
const SETUP_MS = 120_000;
// Several page loads, a set-up and two token requests per test: more than the default on a busy machine.
const TIMEOUT = 60_000;

/** Passes the method on the login page shown. */
type PassStep = (page: Page) => Promise<void>;

interface Variant {
  loginType: string;
  username: string;
  /** How the page names the user: the login_hint masked. */
  shownAs: string;
  /** What the page offers: the method it shows, and the others it can switch to. */
  offers: { shown: string; others: string[] };
  /** The method the user passes, which the tokens' amr names. */
  passes: string;
  /** Sets the method up for the user (as an operator, or on the account page in `page`); the step that passes it. */
  prepare(page: Page, sub: string): Promise<PassStep>;
}

const SMS_NUMBER = "+447700900124";
const MAIL_ADDRESS = "maile@example.com";
/** The FIDO2 user registers the key on the account page, which needs a password sign-in first. */
const FIDO_USER = "fiona";

describe.skipIf(!haveChromium)("the Mfa variants in Chromium with openid-client", () => {
  let suite: MethodSuite;
  let sms: CodeDelivery;
  let email: CodeDelivery;
  const contexts = new ContextPerTest(() => suite.browser);

  /** What `portcullis methods enroll <sub> <method> KEY=VALUE` does (the CLI's tests run the command itself). */
  async function enrollByOperator(delivery: CodeDelivery, sub: string, address: string): Promise<void> {
    const loaded = suite.op.provider.methods.get(delivery.method)!;
    await loaded.plugin.enrollByOperator!(loaded.context, sub, { [delivery.operatorOption]: address });
  }

  const VARIANTS: Variant[] = [
    {
      loginType: "MfaAcmeOtp",
      username: "otto",
      shownAs: "o•••o",
      offers: { shown: "appotp", others: [] },
      passes: "appotp",
      async prepare(_page, sub) {
        const phone = await enrolledPhone(suite.op, sub, "Otto's phone");
        return async (page) => {
          await page.getByLabel("Code").fill(await phone.code());
          await page.getByRole("button", { name: "Sign in" }).click();
        };
      },
    },
    {
      loginType: "MfaScan",
      username: "scarlett",
      shownAs: "sc•••t",
      offers: { shown: "qrcode", others: [] },
      passes: "qrcode",
      async prepare(_page, sub) {
        const phone = await enrolledPhone(suite.op, sub, "Scarlett's phone");
        return (page) => scanAndApprove(page, phone);
      },
    },
    {
      loginType: "MfaFido",
      username: FIDO_USER,
      shownAs: "f•••a",
      offers: { shown: "fido", others: [] },
      passes: "fido",
      async prepare(page) {
        // The authenticator lives with the page: register it there, then forget the password session.
        await addVirtualAuthenticator(page);
        await signInWithPassword(page, suite.web, FIDO_USER);
        await registerOnAccountPage(page, suite.op.issuer);
        await page.context().clearCookies();
        return (page) => page.getByRole("button", { name: "Use security key or passkey" }).click();
      },
    },
    {
      loginType: "MfaSms",
      username: "simone",
      shownAs: "si•••e",
      offers: { shown: "sms", others: [] },
      passes: "sms",
      async prepare(_page, sub) {
        await enrollByOperator(sms, sub, SMS_NUMBER);
        return (page) => passWithCode(page, sms, SMS_NUMBER);
      },
    },
    {
      loginType: "MfaMail",
      username: "maile",
      shownAs: "m•••e",
      offers: { shown: "email", others: [] },
      passes: "email",
      async prepare(_page, sub) {
        await enrollByOperator(email, sub, MAIL_ADDRESS);
        return (page) => passWithCode(page, email, MAIL_ADDRESS);
      },
    },
    {
      // The scan comes first; the user switches to the app's dynamic code, the variant's other method.
      loginType: "MfaAcmeApp",
      username: "abigail",
      shownAs: "ab•••l",
      offers: { shown: "qrcode", others: ["appotp"] },
      passes: "appotp",
      async prepare(_page, sub) {
        const phone = await enrolledPhone(suite.op, sub, "Abigail's phone");
        return async (page) => {
          await page.getByRole("button", { name: "Dynamic code from the mobile app" }).click();
          await page.getByLabel("Code").fill(await phone.code());
          await page.getByRole("button", { name: "Sign in" }).click();
        };
      },
    },
  ];

  beforeAll(async () => {
    [sms, email] = await Promise.all([startSmsDelivery(), startEmailDelivery()]);
    suite = await startMethodSuite({
      methods: ["password"],
      localhost: true,
      edits: {
        "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
        "users.yaml": extraUsers(
          VARIANTS.map((v) => v.username),
          { [FIDO_USER]: await hashPassword(`${FIDO_USER}-password`) },
        ),
        "login.yaml": { ...sms.edits, ...email.edits },
      },
    });
  }, SETUP_MS);
  afterAll(async () => {
    await suite?.close();
    await sms?.close();
    await email?.close();
  });
  afterEach(() => contexts.close());

  it.each(VARIANTS)(
    "$loginType: the login_hint's user passes $passes on a page offering only the variant's methods; login_type needed at the token endpoint; no SSO session left",
    async (variant) => {
      const { web, op } = suite;
      const sub = (await op.provider.policies.current().users.findByUsername(variant.username))!.sub;
      const page = await contexts.page();
      const pass = await variant.prepare(page, sub);
      const refusedBefore = web.tokenErrors.length;

      await page.goto(web.loginUrl({ login_type: variant.loginType, login_hint: variant.username, rp_omit_login_type: "once" }));
      expect(await page.locator(".login-account").textContent()).toBe(`Signing in as ${variant.shownAs}`);
      expect(await methodsOffered(page)).toEqual(variant.offers);
      // No first factor here: a third party did it.
      expect(await page.locator('input[name="password"]').count()).toBe(0);
      await pass(page);

      const { status, response } = await atCallback(page, web);
      expect(status).toBe(`signed in as ${sub}`);
      expect(response.get("login_type")).toBe(variant.loginType);
      // The RP's token request without login_type was refused, and left the code for the one that repeats it.
      expect(web.tokenErrors.slice(refusedBefore)).toEqual(["invalid_grant"]);
      const signIn = web.signIns.at(-1)!;
      expect(signIn.refusedWithoutLoginType).toMatch(/login_type is required/);
      expect(signIn).toMatchObject({
        sub,
        tokenLoginType: variant.loginType,
        claims: { amr: [variant.passes], acr: "1fa" },
        accessTokenClaims: { amr: [variant.passes], acr: "1fa" },
      });

      expect((await page.context().cookies(op.issuer)).map((c) => c.name)).not.toContain(SESSION_COOKIE);
      // Nor does the provider remember the login any other way: a plain request gets the login page.
      await page.goto(web.loginUrl());
      await page.waitForURL((url) => url.pathname.startsWith("/interaction/"));
      expect(await page.locator('input[name="password"]').count()).toBe(1);
    },
    TIMEOUT,
  );

  it(
    "shows a login_hint with markup as text, masked, in the page's language",
    async () => {
      const page = await contexts.page();
      await page.goto(suite.web.loginUrl({ login_type: "MfaSms", login_hint: "<img src=x onerror=alert(1)>", lang: "tw" }));
      const line = page.locator(".login-account");
      expect(await line.textContent()).toBe("正在以 <i•••> 的身分登入");
      expect(await line.locator("*").count()).toBe(0);
    },
    TIMEOUT,
  );
});
