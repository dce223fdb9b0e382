import { generate } from "otplib";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable } from "../support/chromium.ts";
import { atCallback, ContextPerTest, otherMethodsOffered, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";
import { extraUsers } from "../support/method-pages.ts";

/**
 * Pushed authorization requests in Chromium (RFC 9126): demo-web, a relying party driven by
 * openid-client v6, pushes its request with login_type MfaTotp and sends the browser with client_id and
 * request_uri alone; the login runs what was pushed, and the RP redeems the code repeating login_type.
 * A browser that rewrites the authorize request on its way (a hostile extension, a user editing the
 * address) to ask for another login type, user, language or prompt gets the pushed login all the same.
 */
const SUITE = "Pushed authorization requests (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
// Several page loads, a push, a sign-in and a token exchange per test: more than the default on a busy machine.
const TIMEOUT = 60_000;

/** Users with TOTP only (MfaTotp: a third party did the first factor); each test enters codes for a user of its own. */
const USERS = ["mia", "max"] as const;

describe.skipIf(!haveChromium)("pushed authorization requests in Chromium with openid-client", () => {
  let suite: MethodSuite;
  const contexts = new ContextPerTest(() => suite.browser);
  const secrets = new Map<string, string>();
  const subs = new Map<string, string>();

  beforeAll(async () => {
    suite = await startMethodSuite({ methods: ["password"], edits: { "users.yaml": extraUsers(USERS) } });
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

  /** The authorize requests the page sends to the provider, as they left the browser. */
  function authorizeRequests(page: Page): URL[] {
    const seen: URL[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin === new URL(suite.op.issuer).origin && url.pathname === "/connect/authorize") seen.push(url);
    });
    return seen;
  }

  async function passTotp(page: Page, username: string): Promise<void> {
    await page
      .getByLabel("Code from your authenticator app")
      .fill(await generate({ secret: secrets.get(username)!, epoch: Math.floor(Date.now() / 1000) }));
    await page.getByRole("button", { name: "Verify" }).click();
  }

  it(
    "logs mia in with a pushed MfaTotp request: the browser carries only client_id and request_uri, the page offers TOTP alone",
    async () => {
      const page = await contexts.page();
      const sent = authorizeRequests(page);
      await page.goto(suite.web.loginUrl({ login_type: "MfaTotp", login_hint: "mia", lang: "en", rp_par: "1" }));
      expect(sent.map((url) => [...url.searchParams.keys()].sort())).toEqual([["client_id", "request_uri"]]);
      expect(await page.locator("#totp-code").count()).toBe(1);
      expect(await page.locator('input[name="password"]').count()).toBe(0);
      expect(await otherMethodsOffered(page)).toEqual([]);
      await passTotp(page, "mia");

      const { status, response } = await atCallback(page, suite.web);
      expect(status).toBe(`signed in as ${subs.get("mia")}`);
      expect(response.get("login_type")).toBe("MfaTotp");
      const signIn = suite.web.signIns.at(-1)!;
      expect(signIn.tokenLoginType).toBe("MfaTotp");
      expect(signIn.claims).toMatchObject({ sub: subs.get("mia"), amr: ["totp"], acr: "1fa" });
    },
    TIMEOUT,
  );

  it(
    "runs the pushed login when the browser rewrites the authorize request to ask for another type, user, language and prompt",
    async () => {
      const page = await contexts.page();
      const rewritten: URL[] = [];
      // The RP's redirect to authorize, rewritten before the browser follows it (Chromium routes no redirected request itself).
      await page.route(
        (url) => url.pathname === "/login",
        async (route) => {
          const response = await route.fetch({ maxRedirects: 0 });
          const location = new URL(response.headers().location!);
          for (const [name, value] of Object.entries({
            login_type: "2FA",
            login_hint: "mia",
            acr_values: "2fa:password",
            lang: "jp",
            prompt: "none",
          }))
            location.searchParams.set(name, value);
          rewritten.push(location);
          await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
        },
      );
      const sent = authorizeRequests(page);
      await page.goto(suite.web.loginUrl({ login_type: "MfaTotp", login_hint: "max", lang: "en", rp_par: "1" }));
      // The provider got the rewritten request, and it changed nothing: max's TOTP, in English, and no prompt=none refusal.
      expect(rewritten.map((url) => url.searchParams.has("request_uri"))).toEqual([true]);
      expect(sent.map((url) => url.searchParams.get("login_type"))).toEqual(["2FA"]);
      expect(await page.locator("html").getAttribute("lang")).toBe("en");
      expect(await page.locator("#totp-code").count()).toBe(1);
      expect(await page.locator('input[name="password"]').count()).toBe(0);
      await passTotp(page, "max");

      const { status, response } = await atCallback(page, suite.web);
      expect(status).toBe(`signed in as ${subs.get("max")}`);
      expect(response.get("login_type")).toBe("MfaTotp");
      expect(suite.web.signIns.at(-1)!.claims).toMatchObject({ sub: subs.get("max"), amr: ["totp"], acr: "1fa" });
    },
    TIMEOUT,
  );
});
