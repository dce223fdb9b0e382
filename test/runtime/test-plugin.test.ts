import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { formAction, hiddenField, RawBrowser, type Answer } from "../support/raw-browser.ts";
import { authorizeUrl, loginWithPassword, openLoginPage, responseParams } from "../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../support/code-grant.ts";

/**
 * The proof of the plugin contract: test/plugins/pin/ is a factor method Portcullis does not
 * ship. One line of login.yaml (`pin: { from: ... }`) makes it a login method with its own page, UI
 * strings, attempt limit, HTTP route and enrollment flow on the account page — with no change to src/.
 */
const PIN_PLUGIN = resolve(import.meta.dirname, "../plugins/pin");

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "login.yaml": {
        // The runtime's own keys: where the plugin is, the amr it adds to tokens, its attempt limit.
        "methods.pin": { from: PIN_PLUGIN, amr: "knowledge-pin", attempts: { max_failures: 3, window: "15m" } },
        "default_flow.methods": ["password", "pin"],
      },
    },
  });
});
afterAll(() => p.close());

/** Posts a form of `page` (the first form with this event) with its CSRF token. */
function submit(browser: RawBrowser, page: Answer, fields: Record<string, string>): Promise<Answer> {
  return browser.post(formAction(page.text, page.url), { csrf: hiddenField(page.text, "csrf") ?? "", ...fields });
}

/** Alice's browser with an SSO session (password login), on her account page. */
async function aliceAccountPage(): Promise<{ browser: RawBrowser; page: Answer }> {
  const browser = new RawBrowser();
  expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer))).get("code")).toBeTruthy();
  const page = await browser.get(`${p.url}/account`);
  expect(page.status).toBe(200);
  return { browser, page };
}

/** Enrolls `pin` for the signed-in browser through the account page. */
async function enrollPin(browser: RawBrowser, account: Answer, pin: string): Promise<Answer> {
  const started = await browser.post(`${p.url}/account/enroll`, { csrf: hiddenField(account.text, "csrf")!, method: "pin" });
  expect(started.status).toBe(303);
  const step = await browser.follow(started);
  expect(step.text).toContain('name="event" value="CHOOSE_PIN"');
  return browser.follow(await submit(browser, step, { event: "CHOOSE_PIN", pin, repeat: pin }));
}

/** A fresh browser logging in as `user` with the PIN method; the answer after the PIN is posted. */
async function pinLogin(pin: string, loginHint = "alice"): Promise<Answer> {
  const browser = new RawBrowser();
  const login = await openLoginPage(browser, authorizeUrl(p.issuer, { login_hint: loginHint }));
  const pinPage = await submit(browser, login, { event: "CHOOSE_METHOD", method: "pin" });
  expect(pinPage.text).toContain('name="event" value="SUBMIT_PIN"');
  return submit(browser, pinPage, { event: "SUBMIT_PIN", pin });
}

describe("a factor method from outside the project (test/plugins/pin)", () => {
  it("is offered on the login page with its own translated label", async () => {
    const login = await openLoginPage(new RawBrowser(), authorizeUrl(p.issuer, { lang: "jp" }));
    expect(login.text).toContain('name="method" value="pin">PIN</button>');
  });

  it("serves its own routes under /methods/<id>", async () => {
    const res = await fetch(`${p.url}/methods/pin/about`);
    expect(await res.json()).toEqual({ method: "pin", digits: "4-8" });
  });

  it("is enrolled from the account page and then logs the user in, with its amr in the ID token", async () => {
    const { browser, page } = await aliceAccountPage();
    expect(page.text).toContain('name="method" value="pin">Set up</button>');
    const after = await enrollPin(browser, page, "4711");
    expect(after.url).toBe(`${p.url}/account?enrolled=pin`);
    expect(after.text).toContain("The method is set up.");
    expect(after.text).toContain('name="method" value="pin">Remove</button>');
    expect(await p.provider.enrollments.get("pin", "E10001")).toMatchObject({ method: "pin", sub: "E10001" });

    const answer = await pinLogin("4711");
    const tokens = await redeemCode(p, responseParams(answer).get("code")!, { code_verifier: undefined });
    expect(tokens.status).toBe(200);
    const claims = await verifyIdToken(p, tokens.json!.id_token as string);
    expect(claims).toMatchObject({ sub: "E10001", amr: ["knowledge-pin"], acr: "1fa" });
  });

  it("refuses a wrong PIN with the method's own message, and locks after its configured attempts without saying so", async () => {
    const pin = p.provider.methods.get("pin")!;
    expect(await pin.plugin.enrollByOperator!(pin.context, "E10002", { pin: "9999" })).toBe("PIN set for E10002");
    const pages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const wrong = await pinLogin("0000", "bob");
      expect(wrong.status).toBe(200);
      pages.push(wrong.text);
    }
    expect(pages[0]).toContain("The PIN is incorrect.");
    expect(await pin.context.attempts.count("E10002")).toBe(3);
    // Locked now: the right PIN gets exactly the wrong PIN's page.
    const locked = await pinLogin("9999", "bob");
    expect(locked.status).toBe(200);
    const normalise = (html: string) =>
      html.replace(/(csrf" value=")[^"]+/g, "$1").replace(/\/interaction\/[A-Za-z0-9_-]+/g, "/interaction/ID");
    expect(normalise(locked.text)).toBe(normalise(pages[0]!));
  });

  it("asks who is logging in first when there is no login_hint, offering only the other methods meanwhile", async () => {
    const browser = new RawBrowser();
    const login = await openLoginPage(browser, authorizeUrl(p.issuer));
    const identify = await submit(browser, login, { event: "CHOOSE_METHOD", method: "pin" });
    expect(identify.text).toContain('name="event" value="SUBMIT_USERNAME"');
    expect(identify.text).toContain('name="method" value="password"');
    expect(identify.text).not.toContain('name="method" value="pin"');
    const pinPage = await submit(browser, identify, { event: "SUBMIT_USERNAME", username: "alice" });
    expect(pinPage.text).toContain('name="event" value="SUBMIT_PIN"');
  });

  it("asks an unknown user's PIN like anyone's and never accepts it", async () => {
    const answer = await pinLogin("4711", "nobody-here");
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("The PIN is incorrect.");
  });

  it("needs nothing in src/: no source file names the plugin", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const src = resolve(import.meta.dirname, "../../src");
    const naming = files(src).filter((f) => /["'`/]pin["'`/]|method\.pin\.|plugins\/pin/.test(readFileSync(f, "utf8")));
    expect(naming).toEqual([]);
  });
});

describe("the account page", () => {
  it("offers a browser without a session to sign in, through the login flow, and then shows the user's methods", async () => {
    const browser = new RawBrowser();
    const page = await browser.get(`${p.url}/account`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/account/sign-in"');
    expect(page.text).not.toContain('value="pin"');
    const login = await browser.follow(await browser.get(`${p.url}/account/sign-in`));
    expect(login.url).toMatch(/\/interaction\//);
    expect(login.text).toContain("<h1>Sign in to Portcullis</h1>");
    const signedIn = await browser.follow(
      await submit(browser, login, { event: "SUBMIT_PASSWORD", username: "alice", password: "alice-password" }),
    );
    expect(signedIn.url).toBe(`${p.url}/account`);
    expect(signedIn.text).toContain('name="method" value="pin"');
    // A real SSO session: an application now gets a code without a login.
    expect(responseParams(await browser.get(authorizeUrl(p.issuer, { prompt: "none" }))).get("code")).toBeTruthy();
  });

  it("refuses the enroll and remove forms of a browser without a session", async () => {
    const browser = new RawBrowser();
    expect((await browser.post(`${p.url}/account/enroll`, { csrf: "x", method: "pin" })).status).toBe(401);
    expect((await browser.post(`${p.url}/account/remove`, { csrf: "x", method: "pin" })).status).toBe(401);
  });

  it("lists only the methods that can be enrolled", async () => {
    const { page } = await aliceAccountPage();
    expect(page.text).toContain('value="pin"');
    expect(page.text).not.toContain('value="password"');
  });

  it("refuses enroll and remove forms without its CSRF token", async () => {
    const { browser } = await aliceAccountPage();
    const enroll = await browser.post(`${p.url}/account/enroll`, { csrf: "forged", method: "pin" });
    expect(enroll.status).toBe(403);
    const remove = await browser.post(`${p.url}/account/remove`, { method: "pin" });
    expect(remove.status).toBe(403);
  });

  it("refuses a method that cannot be enrolled", async () => {
    const { browser, page } = await aliceAccountPage();
    const answer = await browser.post(`${p.url}/account/enroll`, { csrf: hiddenField(page.text, "csrf")!, method: "password" });
    expect(answer.status).toBe(400);
  });

  it("removes an enrollment, after which the method no longer logs the user in", async () => {
    const { browser, page } = await aliceAccountPage();
    await enrollPin(browser, page, "2468");
    const removed = await browser.follow(
      await browser.post(`${p.url}/account/remove`, { csrf: hiddenField(page.text, "csrf")!, method: "pin" }),
    );
    expect(removed.url).toBe(`${p.url}/account?removed=pin`);
    expect(await p.provider.enrollments.get("pin", "E10001")).toBeUndefined();
    expect((await pinLogin("2468")).text).toContain("The PIN is incorrect.");
  });

  it("ends an enrollment whose session ended meanwhile", async () => {
    const { browser, page } = await aliceAccountPage();
    const step = await browser.follow(
      await browser.post(`${p.url}/account/enroll`, { csrf: hiddenField(page.text, "csrf")!, method: "pin" }),
    );
    const logout = await browser.get(`${p.url}/connect/endsession`);
    await browser.post(formAction(logout.text, logout.url), { csrf: hiddenField(logout.text, "csrf")!, confirm: "yes" });
    const answer = await submit(browser, step, { event: "CHOOSE_PIN", pin: "1357", repeat: "1357" });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain("interaction_expired");
    expect(await p.provider.enrollments.get("pin", "E10001")).toBeUndefined();
  });
});
