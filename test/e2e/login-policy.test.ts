import { generate } from "otplib";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/crypto/password-hash.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import {
  atCallback,
  ContextPerTest,
  otherMethodsOffered,
  signInWithPassword,
  startMethodSuite,
  submitPasswordForm,
  type MethodSuite,
} from "../support/browser-methods.ts";
import { extraUsers } from "../support/method-pages.ts";
import type { RpClient } from "../support/relying-party.ts";

/**
 * The login policy end to end (issue 12): Chromium logs in at demo-web, a relying party driven by
 * openid-client v6, with login_type and acr_values. 2FA (password, then TOTP: amr in both tokens),
 * step-up of a password session to 2fa, MfaTotp (TOTP only, no SSO left behind, the token request
 * repeats login_type), and req_chnl / chnl_info (the channel chooser; a temporary member refused).
 *
 * TOTP is enrolled through the plugin's operator enrollment and codes come from otplib, as an
 * authenticator app computes them. The method accepts each time step once per user, so every test
 * that enters a code has a user of its own.
 */
const SUITE = "Login policy suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
// Several page loads, a sign-in and a token exchange per test: more than the default on a busy machine.
const TIMEOUT = 60_000;

/** Users with a password and TOTP (2FA, step-up); users with TOTP only (MfaTotp: a third party did the first factor). */
const PASSWORD_USERS = ["tina", "uma", "vic", "wes"] as const;
const TOTP_ONLY_USERS = ["mia", "max"] as const;
const USERS = [...PASSWORD_USERS, ...TOTP_ONLY_USERS];
/**
 * What a 2FA login offers besides TOTP once the trusted factor is proven: config/login.yaml's 2FA
 * methods of the other (untrusted) class, in order — never password, qrcode or appotp again.
 */
const UNTRUSTED_ALTERNATIVES = ["fido", "sms", "email", "face"];
/** The SSO session cookie's name (src/sessions/session-cookie.ts; no prefix over plain http). */
const SESSION_COOKIE = "portcullis_session";

describe.skipIf(!haveChromium)("login policy in Chromium with openid-client", () => {
  let suite: MethodSuite;
  let web: RpClient;
  const contexts = new ContextPerTest(() => suite.browser);
  const secrets = new Map<string, string>();
  const subs = new Map<string, string>();

  beforeAll(async () => {
    const hashes = Object.fromEntries(
      await Promise.all(PASSWORD_USERS.map(async (name) => [name, await hashPassword(`${name}-password`)] as const)),
    );
    suite = await startMethodSuite({
      methods: ["password"],
      edits: {
        "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
        "users.yaml": extraUsers(USERS, hashes),
      },
    });
    web = suite.web;
    const totp = suite.op.provider.methods.get("totp")!;
    for (const username of USERS) {
      const sub = (await suite.op.provider.policies.current().users.findByUsername(username))!.sub;
      subs.set(username, sub);
      const uri = await totp.plugin.enrollByOperator!(totp.context, sub, {});
      secrets.set(username, new URL(uri).searchParams.get("secret")!);
    }
  }, TIMEOUT);
  afterAll(() => suite?.close());
  afterEach(() => contexts.close());

  /** The TOTP step: the page asks for the code of `username`'s app (switching to TOTP when it shows another method), submitted. */
  async function passTotp(page: Page, username: string): Promise<void> {
    const field = page.getByLabel("Code from your authenticator app");
    if ((await page.locator("#totp-code").count()) === 0) await page.locator('.other-methods button[value="totp"]').click();
    await field.fill(await generate({ secret: secrets.get(username)!, epoch: Math.floor(Date.now() / 1000) }));
    await page.getByRole("button", { name: "Verify" }).click();
  }

  describe("2FA: password, then TOTP", () => {
    it(
      "logs in with login_type=2FA; login_type comes back, and both tokens at the RP have amr [password, totp, mfa] and acr 2fa",
      async () => {
        const page = await contexts.page();
        await page.goto(web.loginUrl({ login_type: "2FA" }));
        await submitPasswordForm(page, "tina");
        // The second step asks for a factor of the other class only.
        await expect.poll(() => page.locator("#totp-code").count(), { timeout: 20_000, message: "the code field" }).toBe(1);
        expect(await page.locator('input[name="password"]').count()).toBe(0);
        expect(await otherMethodsOffered(page)).toEqual(UNTRUSTED_ALTERNATIVES);
        await passTotp(page, "tina");

        const { status, response } = await atCallback(page, web);
        expect(status).toBe(`signed in as ${subs.get("tina")}`);
        expect(response.get("login_type")).toBe("2FA");
        const signIn = web.signIns.at(-1)!;
        expect(signIn.claims).toMatchObject({ sub: subs.get("tina"), amr: ["password", "totp", "mfa"], acr: "2fa" });
        expect(signIn.accessTokenClaims).toMatchObject({ sub: subs.get("tina"), amr: ["password", "totp", "mfa"], acr: "2fa" });
      },
      TIMEOUT,
    );

    it(
      "logs in with acr_values=2fa:password,totp: the password form first, then TOTP; both tokens say 2fa",
      async () => {
        const page = await contexts.page();
        await page.goto(web.loginUrl({ acr_values: "2fa:password,totp" }));
        // Only the named methods, in their order: the password form first, TOTP the only other choice.
        expect(await page.locator('input[name="password"]').count()).toBe(1);
        expect(await otherMethodsOffered(page)).toEqual(["totp"]);
        await submitPasswordForm(page, "uma");
        await expect.poll(() => page.locator("#totp-code").count(), { timeout: 20_000, message: "the code field" }).toBe(1);
        expect(await otherMethodsOffered(page)).toEqual([]);
        await passTotp(page, "uma");

        const { status, response } = await atCallback(page, web);
        expect(status).toBe(`signed in as ${subs.get("uma")}`);
        // login_type comes back only when the request named one.
        expect(response.get("login_type")).toBeNull();
        const signIn = web.signIns.at(-1)!;
        expect(signIn.claims).toMatchObject({ amr: ["password", "totp", "mfa"], acr: "2fa" });
        expect(signIn.accessTokenClaims).toMatchObject({ amr: ["password", "totp", "mfa"], acr: "2fa" });
      },
      TIMEOUT,
    );
  });

  it(
    "logs in with acr_values=2fa:totp, which names the second verification only: a trusted method of the user's choice (the password), then TOTP",
    async () => {
      const page = await contexts.page();
      await page.goto(web.loginUrl({ acr_values: "2fa:totp" }));
      await submitPasswordForm(page, "wes");
      await expect.poll(() => page.locator("#totp-code").count(), { timeout: 20_000, message: "the code field" }).toBe(1);
      // TOTP is the one second verification named: nothing else is offered.
      expect(await otherMethodsOffered(page)).toEqual([]);
      await passTotp(page, "wes");

      expect((await atCallback(page, web)).status).toBe(`signed in as ${subs.get("wes")}`);
      expect(web.signIns.at(-1)!.claims).toMatchObject({ amr: ["password", "totp", "mfa"], acr: "2fa" });
    },
    TIMEOUT,
  );

  it(
    "steps a password session up to 2fa: prompt=none gets interaction_required, then only TOTP is asked",
    async () => {
      const page = await contexts.page();
      await signInWithPassword(page, web, "vic");
      expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: subs.get("vic"), amr: ["password"], acr: "1fa" });

      await page.goto(web.loginUrl({ acr_values: "2fa", prompt: "none" }));
      expect((await atCallback(page, web)).status).toBe("error: interaction_required");

      await page.goto(web.loginUrl({ acr_values: "2fa" }));
      // The session's password counts: the page asks for the missing (untrusted) factor only.
      await expect.poll(() => page.locator("#totp-code").count(), { timeout: 20_000, message: "the code field" }).toBe(1);
      expect(await page.locator('input[name="password"]').count()).toBe(0);
      expect(await otherMethodsOffered(page)).toEqual(UNTRUSTED_ALTERNATIVES);
      await passTotp(page, "vic");
      expect((await atCallback(page, web)).status).toBe(`signed in as ${subs.get("vic")}`);
      expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: subs.get("vic"), amr: ["password", "totp", "mfa"], acr: "2fa" });
      expect(web.signIns.at(-1)!.accessTokenClaims).toMatchObject({ amr: ["password", "totp", "mfa"], acr: "2fa" });

      // The session now proves both factors: the same request is answered without a page.
      await page.goto(web.loginUrl({ acr_values: "2fa", prompt: "none" }));
      expect((await atCallback(page, web)).status).toBe(`signed in as ${subs.get("vic")}`);
    },
    TIMEOUT,
  );

  describe("MfaTotp: the second factor only", () => {
    it(
      "runs only TOTP for the login_hint's user, leaves no SSO cookie, and the RP's token request repeats login_type",
      async () => {
        const page = await contexts.page();
        await page.goto(web.loginUrl({ login_type: "MfaTotp", login_hint: "mia" }));
        expect(await page.locator("#totp-code").count()).toBe(1);
        expect(await page.locator('input[name="password"]').count()).toBe(0);
        expect(await otherMethodsOffered(page)).toEqual([]);
        await passTotp(page, "mia");

        const { status, response } = await atCallback(page, web);
        expect(status).toBe(`signed in as ${subs.get("mia")}`);
        expect(response.get("login_type")).toBe("MfaTotp");
        expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: subs.get("mia"), amr: ["totp"], acr: "1fa" });
        expect(web.signIns.at(-1)!.accessTokenClaims).toMatchObject({ amr: ["totp"], acr: "1fa" });

        const providerCookies = await contexts.context!.cookies(suite.op.issuer);
        expect(providerCookies.map((c) => c.name)).not.toContain(SESSION_COOKIE);
        // Nor does the provider remember the login any other way: a silent request needs a login.
        await page.goto(web.loginUrl({ prompt: "none" }));
        expect((await atCallback(page, web)).status).toBe("error: login_required");
      },
      TIMEOUT,
    );

    it(
      "refuses the code with invalid_grant when the RP's token request leaves login_type out",
      async () => {
        const page = await contexts.page();
        const refusedBefore = web.tokenErrors.length;
        await page.goto(web.loginUrl({ login_type: "MfaTotp", login_hint: "max", rp_omit_login_type: "1" }));
        await passTotp(page, "max");
        const { status, response } = await atCallback(page, web);
        expect(response.get("login_type")).toBe("MfaTotp");
        expect(status).toMatch(/^token exchange failed: /);
        expect(web.tokenErrors.slice(refusedBefore)).toEqual(["invalid_grant"]);
      },
      TIMEOUT,
    );
  });

  describe("req_chnl and chnl_info", () => {
    it(
      "shows alice, who administers three channels, the chooser; the one she picks is in both tokens with its name and icon",
      async () => {
        const page = await contexts.page();
        await page.goto(web.loginUrl({ acr_values: "req_chnl chnl_info" }));
        await submitPasswordForm(page, "alice");
        const choices = page.locator(".channel-list button");
        await expect.poll(() => choices.allTextContents(), { timeout: 20_000 }).toEqual(["North Store", "South Store", "Online Shop"]);
        await page.getByRole("button", { name: "Online Shop" }).click();

        expect((await atCallback(page, web)).status).toBe("signed in as E10001");
        const channel = { chnl: "online-shop", chnl_name: "Online Shop", chnl_icon: "https://example.com/channels/online-shop.png" };
        expect(web.signIns.at(-1)!.claims).toMatchObject({ sub: "E10001", ...channel });
        expect(web.signIns.at(-1)!.accessTokenClaims).toMatchObject({ sub: "E10001", ...channel });
      },
      TIMEOUT,
    );

    it(
      "refuses bob req_chnl:north-store, where he is only a temporary member: access_denied at the RP",
      async () => {
        const page = await contexts.page();
        const signInsBefore = web.signIns.length;
        await page.goto(web.loginUrl({ acr_values: "req_chnl:north-store" }));
        await submitPasswordForm(page, "bob");
        expect((await atCallback(page, web)).status).toBe("error: access_denied");
        expect(web.signIns.length).toBe(signInsBefore);
      },
      TIMEOUT,
    );
  });
});
