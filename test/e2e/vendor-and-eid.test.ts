import { generate } from "otplib";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable } from "../support/chromium.ts";
import { ContextPerTest, DEMO_WEB_RP, startMethodSuite, submitPasswordForm, type MethodSuite } from "../support/browser-methods.ts";
import { startEidUpstreamProcess, testEidUpstreamEdits, type EidUpstreamProcess } from "../support/eid-upstream.ts";
import type { RpClient } from "../support/relying-party.ts";
import { freePort } from "../support/services.ts";
import { DEMO_VENDOR_RP, vendorLink as signedLink } from "../support/vendor-links.ts";

/**
 * MyVendor and eID end to end (issue 12) in Chromium, with openid-client relying parties.
 *
 * MyVendor: the RP is demo-vendor; its links carry login_hint `demo-vendor:<account>` and the signature
 * the test computes with vendorSignature and the demo's signing key, over the RP's real redirect URI. A
 * vendor account with no TOTP sets it up inside the login (enroll_on_first_use, which this suite turns
 * on: the demo leaves it off, as signed links can be replayed), reading the
 * secret the page's script shows as a person would type it into an app; every bad link is refused at the
 * RP without the provider showing a page.
 *
 * eID: demo-web's RP sends the browser to /eID/authorize; the upstream eID provider is a second
 * Portcullis in its own OS process (the demo's development upstream, citizen mei), whose password page
 * the browser signs in at before /eID/callback brings it back. Both providers are on 127.0.0.1, as the
 * demo's are on one host: a browser keeps their cookies in one jar, whatever the port.
 */
const SUITE = "MyVendor and eID suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
/** Two provider start-ups (one an OS process) on a busy machine: generous, never a measure of speed. */
const SETUP_MS = 120_000;
// Several page loads, a sign-in and token exchanges per test: more than the default on a busy machine.
const TIMEOUT = 60_000;

/** mei at the upstream, as this provider maps her (sub_prefix cz:, claims name and birthdate under scope profile). */
const MEI = { sub: "cz:CZ-4201-7781", name: "Mei Lin", birthdate: "1992/03/08" };
/** The SSO session cookie's name (src/sessions/session-cookie.ts; no prefix over plain http). */
const SESSION_COOKIE = "portcullis_session";

describe.skipIf(!haveChromium)("MyVendor and eID in Chromium with openid-client", () => {
  let suite: MethodSuite;
  let web: RpClient;
  let vendor: RpClient;
  let upstream: EidUpstreamProcess | undefined;
  const contexts = new ContextPerTest(() => suite.browser);

  beforeAll(async () => {
    const upstreamPort = await freePort();
    suite = await startMethodSuite({
      methods: ["password"],
      clients: [{ ...DEMO_WEB_RP, userinfo: true }, DEMO_VENDOR_RP],
      edits: {
        "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
        "login.yaml": { ...testEidUpstreamEdits(`http://127.0.0.1:${upstreamPort}`), "login_types.MyVendor.enroll_on_first_use": true },
      },
    });
    web = suite.web;
    vendor = suite.rp.client("demo-vendor");
    upstream = await startEidUpstreamProcess(upstreamPort, `${suite.op.issuer}/eID/callback`);
  }, SETUP_MS);
  afterAll(async () => {
    await upstream?.stop();
    await suite?.close();
  });
  afterEach(() => contexts.close());

  /** Every answer `page` gets from `origin` from now on, as "<status> <path>". */
  function answersFrom(page: Page, origin: string): string[] {
    const seen: string[] = [];
    page.on("response", (response) => {
      const url = new URL(response.url());
      if (url.origin === origin) seen.push(`${response.status()} ${url.pathname}`);
    });
    return seen;
  }

  /** Waits for `client`'s callback and returns its status line and the authorization response's parameters. */
  async function atCallback(page: Page, client: RpClient): Promise<{ status: string | null; response: URLSearchParams }> {
    await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
    return { status: await page.locator("#status").textContent(), response: new URL(page.url()).searchParams };
  }

  async function providerCookieNames(): Promise<string[]> {
    return (await contexts.context!.cookies(suite.op.issuer)).map((c) => c.name);
  }

  describe("MyVendor (RP demo-vendor)", () => {
    const vendorLink = (loginHint: string, key?: string, extra?: Record<string, string>) => signedLink(vendor, loginHint, key, extra);

    /** The code an app with this secret shows `steps` periods from now. */
    const codeOf = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

    it(
      "sets up TOTP inside the first login of a vendor account with none (signed in as the login_hint, amr [totp], login_type at the token endpoint, no SSO cookie); the next login asks for a code",
      async () => {
        const account = "demo-vendor:first-timer";
        let page = await contexts.page();
        await page.goto(vendor.loginUrl(vendorLink(account)));

        // First use: the enrollment page inside the login, nothing else offered.
        const secretText = page.locator("#totp-secret-text");
        await expect.poll(() => secretText.textContent(), { timeout: 20_000 }).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{4}){7}$/);
        expect(await page.locator("#totp-link").getAttribute("href")).toMatch(
          /^otpauth:\/\/totp\/Portcullis:demo-vendor(:|%3A)first-timer\?secret=/,
        );
        expect(await page.locator('input[name="password"]').count()).toBe(0);
        const secret = (await secretText.textContent())!.replaceAll(" ", "");
        await page.getByLabel("Code shown by the app").fill(await codeOf(secret));
        await page.getByRole("button", { name: "Finish setup" }).click();

        const first = await atCallback(page, vendor);
        expect(first.status).toBe(`signed in as ${account}`);
        expect(first.response.get("login_type")).toBe("MyVendor");
        const signIn = vendor.signIns.at(-1)!;
        expect(signIn.tokenLoginType).toBe("MyVendor");
        expect(signIn.claims).toMatchObject({ sub: account, aud: "demo-vendor", amr: ["totp"] });
        expect(await providerCookieNames()).not.toContain(SESSION_COOKIE);

        // The second login of the account (a new browser): a code, no enrollment again.
        await contexts.close();
        page = await contexts.page();
        await page.goto(vendor.loginUrl(vendorLink(account)));
        // Say what the page shows instead, should the code field not come.
        await page
          .locator("#totp-code")
          .waitFor({ timeout: 20_000 })
          .catch(async (error: unknown) => {
            throw new Error(`no code field at ${page.url()}: ${(await page.locator("body").textContent())?.trim().slice(0, 400)}`, {
              cause: error,
            });
          });
        expect(await page.locator("#totp-secret").count()).toBe(0);
        // The enrollment's code used its time step: the app's next code is within the ±1 window.
        await page.getByLabel("Code from your authenticator app").fill(await codeOf(secret, 1));
        await page.getByRole("button", { name: "Verify" }).click();

        const second = await atCallback(page, vendor);
        expect(second.status).toBe(`signed in as ${account}`);
        expect(vendor.signIns.at(-1)!).toMatchObject({ sub: account, tokenLoginType: "MyVendor", claims: { amr: ["totp"] } });
        expect(await providerCookieNames()).not.toContain(SESSION_COOKIE);
      },
      TIMEOUT,
    );

    const BAD_LINKS: Record<string, () => Record<string, string>> = {
      "no signature": () => {
        const { signature: _, ...link } = vendorLink("demo-vendor:acme-support");
        return link;
      },
      "a signature by another key": () => vendorLink("demo-vendor:acme-support", "not-the-demo-vendor-key"),
      "a signature over another login_hint": () => ({ ...vendorLink("demo-vendor:someone-else"), login_hint: "demo-vendor:acme-support" }),
      // Signed with the right key over exactly what is sent: only the login_hint's form is wrong.
      "a login_hint without the demo-vendor: prefix": () => vendorLink("acme-support"),
      "a login_hint naming another client": () => vendorLink("demo-web:acme-support"),
    };
    for (const [kind, link] of Object.entries(BAD_LINKS)) {
      it(
        `refuses ${kind}: invalid_request at the RP, with its state, and no page from the provider`,
        async () => {
          const page = await contexts.page();
          const answers = answersFrom(page, suite.op.issuer);
          const signInsBefore = vendor.signIns.length;
          await page.goto(vendor.loginUrl(link()));
          expect((await atCallback(page, vendor)).status).toBe("error: invalid_request");
          expect(await page.locator("#state").textContent()).toBe("state ok");
          expect(answers).toEqual(["303 /connect/authorize"]);
          expect(vendor.signIns.length).toBe(signInsBefore);
        },
        TIMEOUT,
      );
    }

    it(
      "refuses scope openid profile email with invalid_scope at the RP, and no page from the provider",
      async () => {
        const page = await contexts.page();
        const answers = answersFrom(page, suite.op.issuer);
        await page.goto(vendor.loginUrl(vendorLink("demo-vendor:acme-support", undefined, { scope: "openid profile email" })));
        expect((await atCallback(page, vendor)).status).toBe("error: invalid_scope");
        expect(answers).toEqual(["303 /connect/authorize"]);
      },
      TIMEOUT,
    );
  });

  describe("eID (RP demo-web, upstream a second provider process)", () => {
    it(
      "logs in at the upstream's password page and comes back through /eID/callback with login_type=eID; the token request repeats it; sub and userinfo are the mapped eID account's; a second /eID/authorize is answered from the session",
      async () => {
        const page = await contexts.page();
        const atUpstream = answersFrom(page, upstream!.issuer);
        const atBroker = answersFrom(page, suite.op.issuer);
        await page.goto(web.loginUrl({ rp_endpoint: "eid" }));
        // The upstream's own login page: a Portcullis password form.
        expect(new URL(page.url()).origin).toBe(upstream!.issuer);
        await submitPasswordForm(page, "mei");

        const first = await atCallback(page, web);
        expect(first.status).toBe(`signed in as ${MEI.sub}`);
        expect(first.response.get("login_type")).toBe("eID");
        // The callback answers with a page that moves on to the RP: a redirect would continue the
        // upstream's form post, which the upstream page's CSP form-action does not let reach the RP.
        expect(atBroker.filter((answer) => answer.endsWith(" /eID/callback"))).toEqual(["200 /eID/callback"]);
        const signIn = web.signIns.at(-1)!;
        expect(signIn.tokenLoginType).toBe("eID");
        expect(signIn.claims).toMatchObject({ iss: suite.op.issuer, aud: "demo-web", sub: MEI.sub, amr: ["eid"] });
        expect(signIn.userinfo).toEqual(MEI);
        expect(await providerCookieNames()).toContain(SESSION_COOKIE);

        // SSO: the same browser's next eID login gets its code at once, without the upstream.
        const upstreamAnswers = atUpstream.length;
        expect(upstreamAnswers).toBeGreaterThan(0);
        await page.goto(web.loginUrl({ rp_endpoint: "eid" }));
        const second = await atCallback(page, web);
        expect(second.status).toBe(`signed in as ${MEI.sub}`);
        expect(second.response.get("login_type")).toBe("eID");
        expect(atUpstream.length).toBe(upstreamAnswers);
        expect(web.signIns.at(-1)!).toMatchObject({ sub: MEI.sub, tokenLoginType: "eID", userinfo: MEI });
      },
      TIMEOUT,
    );
  });
});
