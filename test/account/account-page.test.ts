import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { hiddenField, RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(async () => {
  await p?.close();
});

const ALICE = "E10001";

/** A browser with alice's SSO session, from a password login to demo-web. */
async function signedIn(): Promise<RawBrowser> {
  const browser = new RawBrowser();
  expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer))).get("code")).toBeTruthy();
  return browser;
}

/** The block of one method on the page (from its <li id="method-…"> to the next). */
function rowOf(page: Answer, id: string): string {
  const start = page.text.indexOf(`<li class="method-row" id="method-${id}">`);
  expect(start, `row of ${id}`).toBeGreaterThan(-1);
  const next = page.text.indexOf('<li class="method-row"', start + 1);
  return page.text.slice(start, next === -1 ? undefined : next);
}

const today = () => new Date().toISOString().slice(0, 10);

describe("the account page", () => {
  it("lists every configured method, the face method included, with its state and where it is set up", async () => {
    const browser = await signedIn();
    const page = await browser.get(`${p.url}/account`);
    expect(page.status).toBe(200);
    const ids = [...page.text.matchAll(/<li class="method-row" id="method-([a-z]+)">/g)].map((m) => m[1]);
    expect(ids).toEqual(["password", "qrcode", "appotp", "totp", "fido", "sms", "email", "face", "bfido"]);
    expect(page.text).toContain('<h2 class="method-name">Face recognition</h2>');
    expect(rowOf(page, "face")).toContain('<span class="state off">Not set up</span>');
    expect(rowOf(page, "face")).toContain("Set up by your administrator.");
    expect(rowOf(page, "face")).not.toContain("<form");
    expect(rowOf(page, "password")).toContain('<span class="state on">Set up</span>');
    expect(rowOf(page, "password")).toContain("Your password is managed by your organisation.");
    expect(rowOf(page, "appotp")).toContain("Uses the mobile app set up under “Scan the QR code with the mobile app”.");
    expect(rowOf(page, "totp")).toContain('<button type="submit" class="button" name="method" value="totp">Set up</button>');
    expect(rowOf(page, "totp")).not.toContain(">Remove<");
    expect(page.text).toContain('<p class="signed-in-as">Signed in as Alice Chen</p>');
  });

  it("lists the trusted app's FIDO2 credentials by the phone that holds them; the app registers them, not the page", async () => {
    const credential = {
      id: "c".repeat(43),
      publicKey: "k",
      counter: 0,
      transports: ["hybrid"],
      deviceType: "singleDevice",
      backedUp: false,
      aaguid: "0",
      createdAt: Date.parse("2026-03-06T10:00:00Z"),
      deviceId: "d".repeat(22),
      deviceName: "Alice's phone",
    };
    await p.provider.enrollments.put("bfido", ALICE, { userHandle: "u".repeat(43), credentials: [credential] });
    const row = rowOf(await (await signedIn()).get(`${p.url}/account`), "bfido");
    expect(row).toContain('<h2 class="method-name">Trusted app security key (FIDO2)</h2>');
    expect(row).toContain('<span class="state on">Set up</span>');
    expect(row).toContain("<li>Security key in Alice&#x27;s phone ");
    expect(row).not.toContain("<form");
    await p.provider.enrollments.remove("bfido", ALICE);
  });

  it("records the methods of a login as last used, without the login waiting for it", async () => {
    const browser = await signedIn();
    // Written after the answer: poll for it, with a generous limit.
    await expect.poll(() => p.provider.enrollments.lastUsed("password", ALICE), { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
    const page = await browser.get(`${p.url}/account`);
    expect(rowOf(page, "password")).toContain(`<dt>Last used</dt><dd><time datetime="${today()}">`);
    expect(rowOf(page, "totp")).not.toContain("Last used");
  });

  it("shows what is enrolled, masked: a phone number's last digits, an address's first letter and domain", async () => {
    await p.provider.enrollments.put("sms", ALICE, { target: "+447700900123", confirmedAt: Date.parse("2026-03-04T10:00:00Z") });
    await p.provider.enrollments.put("email", ALICE, { target: "alice.chen@example.com", confirmedAt: Date.parse("2026-03-05T10:00:00Z") });
    const page = await (await signedIn()).get(`${p.url}/account`);
    const sms = rowOf(page, "sms");
    expect(sms).toContain('<span class="state on">Set up</span>');
    expect(sms).toContain(
      '<li>Mobile number ending in 0123 <span class="muted">· added <time datetime="2026-03-04">Mar 4, 2026</time></span></li>',
    );
    expect(rowOf(page, "email")).toContain("<li>a•••@example.com ");
    expect(page.text).not.toContain("7700900");
    expect(page.text).not.toContain("alice.chen");
    expect(sms).toContain('<button type="submit" class="button danger" name="method" value="sms">Remove</button>');
    expect(sms).toContain(">Set up again</button>");
  });

  it("asks before removing, and removes only after the confirmation's form with the CSRF token", async () => {
    await p.provider.enrollments.put("sms", ALICE, { target: "+447700900123", confirmedAt: Date.now() });
    const browser = await signedIn();
    const confirm = await browser.get(`${p.url}/account/remove?method=sms&lang=en`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("<h1>Remove “Code by text message (SMS)”?</h1>");
    expect(await p.provider.enrollments.get("sms", ALICE)).toBeDefined();
    expect(confirm.text).toContain('<a class="button secondary" href="/account?lang&#x3D;en">Cancel</a>');
    const forged = await browser.post(`${p.url}/account/remove`, { csrf: "forged", method: "sms" });
    expect(forged.status).toBe(403);
    const removed = await browser.post(`${p.url}/account/remove`, {
      csrf: hiddenField(confirm.text, "csrf")!,
      method: "sms",
      lang: hiddenField(confirm.text, "lang")!,
    });
    expect(removed.location).toBe(`${p.url}/account?lang=en&removed=sms`);
    expect(await p.provider.enrollments.get("sms", ALICE)).toBeUndefined();
    const page = await browser.get(removed.location!);
    expect(page.text).toContain('<p class="notice" role="status">The method is removed.</p>');
  });

  it("refuses the confirmation page without a session, and for a method that is not removed here", async () => {
    expect((await new RawBrowser().get(`${p.url}/account/remove?method=sms`)).status).toBe(401);
    const browser = await signedIn();
    for (const method of ["face", "password", "nope", ""])
      expect((await browser.get(`${p.url}/account/remove?method=${method}`)).status).toBe(400);
  });

  it("leads back only to what the client registered: its post-logout URI, else its redirect URI's origin", async () => {
    const browser = await signedIn();
    const back = async (query: string) =>
      /<a class="nav-link back" href="([^"]*)">([^<]*)<\/a>/.exec((await browser.get(`${p.url}/account${query}`)).text)?.slice(1);
    expect(await back("?client_id=demo-web")).toEqual(["http://localhost:3001/", "Back to Demo web app"]);
    expect(await back("?client_id=demo-spa")).toEqual(["http://localhost:3002/", "Back to Demo single-page app"]);
    expect(await back("?client_id=demo-service")).toBeUndefined();
    expect(await back("?client_id=https%3A%2F%2Fevil.example%2F")).toBeUndefined();
    expect(await back("?client_id=demo-web&return_to=https%3A%2F%2Fevil.example%2F&redirect_uri=https%3A%2F%2Fevil.example%2F")).toEqual([
      "http://localhost:3001/",
      "Back to Demo web app",
    ]);
    expect(await back("")).toBeUndefined();
  });

  it("keeps lang and client_id in its forms and links, and signs out through the end-session endpoint", async () => {
    const browser = await signedIn();
    const page = await browser.get(`${p.url}/account?lang=JP&client_id=demo-web`);
    expect(page.text).toContain('<html lang="ja">');
    expect(page.text).toContain('<a class="nav-link" href="/connect/endsession?lang&#x3D;jp">サインアウト</a>');
    expect(page.text).toContain('<input type="hidden" name="lang" value="jp">');
    expect(page.text).toContain('<input type="hidden" name="client_id" value="demo-web">');
    const signOut = await browser.get(`${p.url}/connect/endsession?lang=jp`);
    expect(signOut.status).toBe(200);
    const done = await browser.post(`${p.url}/connect/endsession/confirm`, { csrf: hiddenField(signOut.text, "csrf")!, confirm: "yes" });
    expect(done.status).toBe(200);
    expect((await browser.get(`${p.url}/account`)).text).toContain('href="/account/sign-in"');
  });

  it("returns from an enrollment to the page with its lang and client_id", async () => {
    const browser = await signedIn();
    const page = await browser.get(`${p.url}/account?lang=vn&client_id=demo-web`);
    const started = await browser.post(`${p.url}/account/enroll`, {
      csrf: hiddenField(page.text, "csrf")!,
      method: "sms",
      lang: "vn",
      client_id: "demo-web",
    });
    expect(started.status).toBe(303);
    const stored = [...(await listInteractions(started.location!))];
    expect(stored).toEqual([{ lang: "vn", clientId: "demo-web" }]);
  });
});

/** The `back` parameters of the interaction a redirect leads to. */
async function listInteractions(location: string) {
  const id = new URL(location).pathname.split("/").pop()!;
  const interaction = (await p.provider.store.namespace<{ back?: unknown }>("interactions").get(id))!;
  return [interaction.back];
}
