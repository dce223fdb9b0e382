import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromiumAvailable, launchChromium, newEnglishContext } from "../support/chromium.ts";
import { authorizeUrl, loginWithPassword, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";
import { redeemCode, refresh, VERIFIER } from "../support/code-grant.ts";
import { acmeDirectoryYaml, BIND_PASSWORD_ENV } from "../support/ldap/acme-directory-config.ts";
import { acmeDirectory, personDn, SERVICE_ACCOUNT } from "../support/ldap/acme-directory.ts";
import { Attribute, Change, Client } from "ldapts";
import { RawBrowser } from "../support/raw-browser.ts";
import { startRelyingParty, type RelyingParty, type RpClient } from "../support/relying-party.ts";
import { portcullis } from "../support/run-cli.ts";
import { slapdAvailable, startSlapd, type RunningSlapd } from "../support/slapd.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The provider on an LDAP directory end to end: Debian's slapd seeded with Acme's organisation (AD's
 * conventions reproduced by src/demo/directory/ad-compat.schema), the provider's directory.yaml pointing
 * at it and users.yaml empty, so everyone who logs in exists only in the directory.
 */
const haveSlapd = slapdAvailable("LDAP directory end-to-end suite");
const haveChromium = chromiumAvailable("LDAP directory end-to-end suite (Chromium)");

/** The provider's clock: the real time plus what a test adds, to step past the directory cache's TTL. */
let skew = 0;
const clock = () => Date.now() + skew;
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");

describe.skipIf(!haveSlapd)("a provider on an LDAP directory", () => {
  let slapd: RunningSlapd;
  let op: TestProvider;
  let rp: RelyingParty;
  let web: RpClient;

  beforeAll(async () => {
    process.env[BIND_PASSWORD_ENV] = SERVICE_ACCOUNT.password;
    slapd = (await startSlapd(acmeDirectory()))!;
    rp = await startRelyingParty([
      { clientId: "demo-web", secret: "demo-web-secret", configIndex: 0, scope: "openid profile email", userinfo: true },
    ]);
    web = rp.client("demo-web");
    op = await startTestProvider({
      clock,
      files: { "directory.yaml": acmeDirectoryYaml(slapd.url, { operationTimeout: "2s" }), "users.yaml": "users: []\n" },
      edits: { "clients.yaml": rp.configEdits() },
    });
    await rp.connect(op.issuer);
  });
  afterAll(async () => {
    await op?.close();
    await rp?.close();
    await slapd?.stop();
  });

  describe.skipIf(!haveChromium)("in Chromium", () => {
    let browser: Browser;
    let context: BrowserContext | undefined;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterEach(async () => {
      await context?.close();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("logs in a person who exists only in the directory, whose userinfo carries every mapped claim and the roles of her groups", async () => {
      context = await newEnglishContext(browser);
      context.setDefaultTimeout(6_000);
      const page = await context.newPage();
      await page.goto(web.loginUrl());
      await page.getByRole("button", { name: "Password", exact: true }).or(page.getByLabel("User name")).first().waitFor();
      if ((await page.getByLabel("User name").count()) === 0) await page.getByRole("button", { name: "Password", exact: true }).click();
      await page.getByLabel("User name").fill("dana");
      await page.getByLabel("Password", { exact: true }).fill("dana-password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.href.startsWith(web.redirectUri));
      expect(await page.locator("#status").textContent()).toBe("signed in as E10004");
      const { userinfo } = web.signIns.at(-1)!;
      expect(userinfo).toEqual({
        sub: "E10004",
        emp_no: "E10004",
        name: "Dana Okafor",
        area: "East",
        bg: "Corporate Functions",
        bu: "Internal Audit",
        company: "Acme Ltd.",
        cost_code: "CC-5150",
        birthdate: "1988/02/29",
        class: "A1",
        job_title: "Audit Lead",
        hiredate: "2019-01-07",
        email: "dana@example.com",
        picture: "https://example.com/people/E10004.png",
        role: expect.arrayContaining(["employee", "auditor"]),
        given_name: "Dana",
        family_name: "Okafor",
        preferred_username: "dana",
        email_verified: true,
        updated_at: expect.any(Number),
      });
      expect(userinfo!.role).toHaveLength(2);
    });
  });

  it("refuses a disabled account with the very answer a wrong password gets", async () => {
    const wrong = await loginWithPassword(
      new RawBrowser(),
      authorizeUrl(op.issuer, { redirect_uri: web.redirectUri }),
      "bob",
      "not-bobs-password",
    );
    const disabled = await loginWithPassword(
      new RawBrowser(),
      authorizeUrl(op.issuer, { redirect_uri: web.redirectUri }),
      "carol",
      "carol-password",
    );
    const unknown = await loginWithPassword(
      new RawBrowser(),
      authorizeUrl(op.issuer, { redirect_uri: web.redirectUri }),
      "nobody",
      "whatever",
    );
    for (const answer of [wrong, disabled, unknown]) expect(answer.status).toBe(200);
    const message = (text: string) => /class="error[^"]*"[^>]*>([^<]*)</.exec(text)?.[1];
    expect(message(disabled.text)).toBeTruthy();
    expect(message(disabled.text)).toBe(message(wrong.text));
    expect(message(unknown.text)).toBe(message(wrong.text));
  });

  it("refuses clearly while the directory is down for 10 s, keeps what its cache knows, and recovers by itself", async () => {
    // Alice signs in while the directory is up: the provider now knows her for cache_ttl (60 s).
    const alice = new RawBrowser();
    const first = responseParams(
      await loginWithPassword(
        alice,
        authorizeUrl(op.issuer, {
          redirect_uri: web.redirectUri,
          code_challenge: CHALLENGE,
          code_challenge_method: "S256",
          scope: "openid profile offline_access",
        }),
      ),
    );
    const tokens = (await redeemCode(op, first.get("code")!, { redirect_uri: web.redirectUri })).json as {
      refresh_token: string;
      access_token: string;
    };
    expect(tokens.refresh_token).toBeTruthy();
    const bob = new RawBrowser();
    const bobsPage = await openLoginPage(bob, authorizeUrl(op.issuer, { redirect_uri: web.redirectUri }));

    await slapd.kill();
    const until = Date.now() + 10_000;
    let rounds = 0;
    try {
      while (Date.now() < until || rounds === 0) {
        rounds++;
        // A password needs the directory: a page that says so in the reader's language, 503, never a 500 or a hang.
        const refused = await submitPassword(bob, bobsPage, "bob", "bob-password");
        expect(refused.status).toBe(503);
        expect(refused.text).toContain("cannot reach a system it depends on");
        // Alice's SSO session and her refresh token go on: the cached entry is enough.
        expect(
          responseParams(await alice.get(authorizeUrl(op.issuer, { redirect_uri: web.redirectUri, prompt: "none" }))).get("code"),
        ).toBeTruthy();
        const refreshed = await refresh(op, tokens.refresh_token);
        expect(refreshed.status, refreshed.text).toBe(200);
        tokens.refresh_token = (refreshed.json as { refresh_token: string }).refresh_token;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      // Past the TTL the cache no longer vouches for her: her refresh and userinfo are refused, as unavailable.
      skew += 61_000;
      const stale = await refresh(op, tokens.refresh_token);
      expect(stale.status).toBe(503);
      expect(stale.json?.error).toBe("temporarily_unavailable");
      const userinfo = await send(`${op.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(userinfo.status).toBe(503);
      expect((await send(`${op.url}/healthz`)).status).toBe(200);
    } finally {
      await slapd.restart();
    }
    // Back: nobody restarted the provider.
    const recovered = await submitPassword(
      bob,
      await openLoginPage(bob, authorizeUrl(op.issuer, { redirect_uri: web.redirectUri })),
      "bob",
      "bob-password",
    );
    expect(recovered.status, recovered.text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/g, "").slice(0, 1500)).toBe(303);
    expect((await refresh(op, tokens.refresh_token)).status).toBe(200);
  });

  it("check-config binds and searches, and names what fails: a wrong bind password, a base that does not exist, a claim's attribute", async () => {
    const env = { [BIND_PASSWORD_ENV]: SERVICE_ACCOUNT.password };
    const ok = await portcullis(["check-config", "--config", op.configDir, "--user", "alice"], { env });
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`directory: connected to ${slapd.url} (no TLS) and bound as ${SERVICE_ACCOUNT.dn}`);
    expect(ok.stdout).toMatch(/directory: users\.filter matches 4 people who have employeeNumber/);
    expect(ok.stdout).toContain(
      "directory: sample user alice (uid=alice,ou=people,dc=acme,dc=test, sub E10001) carries every mapped claim; roles: employee, engineer",
    );

    const wrong = await portcullis(["check-config", "--config", op.configDir], { env: { [BIND_PASSWORD_ENV]: "not-the-password" } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("directory: FAILED: cannot connect to");
    expect(wrong.stderr).toContain("the directory refused the bind (invalid credentials: check bind_dn and bind_password)");

    // carol has no picture and no dates: the mapping names what her entry lacks.
    const carol = await portcullis(["check-config", "--config", op.configDir, "--user", "carol"], { env });
    expect(carol.code).toBe(1);
    expect(carol.stderr).toContain("claim picture: attribute labeledURI is missing");

    writeFileSync(join(op.configDir, "directory.yaml"), acmeDirectoryYaml(slapd.url).replace("ou=people,dc=acme", "ou=staff,dc=acme"));
    try {
      const base = await portcullis(["check-config", "--config", op.configDir], { env });
      expect(base.code).toBe(1);
      expect(base.stderr).toContain("directory: FAILED: users.base ou=staff,dc=acme,dc=test: no such entry in the directory");
    } finally {
      writeFileSync(join(op.configDir, "directory.yaml"), acmeDirectoryYaml(slapd.url, { operationTimeout: "2s" }));
    }
  });

  it("ends a disabled or removed person's SSO session, refresh tokens and userinfo within cache_ttl, without an operator", async () => {
    const signIn = async (username: string) => {
      const browser = new RawBrowser();
      const url = authorizeUrl(op.issuer, {
        redirect_uri: web.redirectUri,
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
        scope: "openid profile offline_access",
      });
      const code = responseParams(await loginWithPassword(browser, url, username, `${username}-password`)).get("code")!;
      const tokens = (await redeemCode(op, code, { redirect_uri: web.redirectUri })).json as {
        refresh_token: string;
        access_token: string;
      };
      return { browser, tokens };
    };
    const bob = await signIn("bob");
    const dana = await signIn("dana");
    const admin = new Client({ url: slapd.url, connectTimeout: 5_000, timeout: 5_000 });
    await admin.bind(slapd.adminDn, slapd.adminPassword);
    const setFlags = (value: string) =>
      admin.modify(
        personDn("bob"),
        new Change({ operation: "replace", modification: new Attribute({ type: "userAccountControl", values: [value] }) }),
      );
    try {
      // HR disables bob (AD's ACCOUNTDISABLE bit) and removes dana.
      await setFlags("514");
      await admin.del(personDn("dana"));
      // Within cache_ttl the provider still knows them as they were: that is the reaction time docs/directory.md states.
      const early = await refresh(op, bob.tokens.refresh_token);
      expect(early.status).toBe(200);
      bob.tokens.refresh_token = (early.json as { refresh_token: string }).refresh_token;
      skew += 61_000;
      for (const person of [bob, dana]) {
        const refused = await refresh(op, person.tokens.refresh_token);
        expect(refused.json?.error).toBe("invalid_grant");
        const userinfo = await send(`${op.url}/connect/userinfo`, { headers: { authorization: `Bearer ${person.tokens.access_token}` } });
        expect(userinfo.status).toBe(401);
        const silent = await person.browser.get(authorizeUrl(op.issuer, { redirect_uri: web.redirectUri, prompt: "none" }));
        expect(responseParams(silent).get("error")).toBe("login_required");
      }
      // Enabled again, bob logs in anew; what was ended stays ended.
      await setFlags("66048");
      skew += 61_000;
      expect((await refresh(op, bob.tokens.refresh_token)).json?.error).toBe("invalid_grant");
      expect((await signIn("bob")).tokens.refresh_token).toBeTruthy();
    } finally {
      await setFlags("66048").catch(() => undefined);
      await admin.unbind();
    }
  });
});
