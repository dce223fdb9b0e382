import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import type { Interaction } from "../../../src/runtime/interaction.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../../support/browser-login.ts";
import { hiddenField, RawBrowser, type Answer } from "../../support/raw-browser.ts";
import { challengeOf, pollOnce, press } from "../../trusted-app/trusted-app-support.ts";

/**
 * Adding a phone on the account page: the qrcode method's enrollment machine shows an
 * acmeauth://enroll QR code whose one-time token only the signed-in user's browser can fetch, and
 * finishes once the app enrolled with it.
 */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

/** A browser signed in as `username`, on the first step of enrolling a phone. */
async function startEnrollment(username = "alice"): Promise<{ browser: RawBrowser; page: Answer }> {
  const browser = new RawBrowser();
  expect(
    responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer), username, `${username}-password`)).get("code"),
  ).toBeTruthy();
  const account = await browser.get(`${p.url}/account`);
  expect(account.text).toContain('name="method" value="qrcode"');
  const page = await browser.follow(
    await browser.post(`${p.url}/account/enroll`, { csrf: hiddenField(account.text, "csrf")!, method: "qrcode" }),
  );
  expect(page.status).toBe(200);
  expect(challengeOf(page).pollUrl).toMatch(/\/methods\/qrcode\/enrollments\/[A-Za-z0-9_-]{22}$/);
  return { browser, page };
}

describe("enrolling a phone on the account page", () => {
  it("shows a one-time acmeauth://enroll code, and ends on the account page once the app enrolled", async () => {
    const { browser, page } = await startEnrollment();
    const { state, uri } = await pollOnce(browser, page);
    expect(state).toBe("pending");
    expect(uri).toMatch(/^acmeauth:\/\/enroll\?issuer=[^&]+&token=[A-Za-z0-9_-]{32}$/);
    const qr = await browser.get(`${challengeOf(page).pollUrl}/qr.svg`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toBe("image/svg+xml");
    expect(qr.headers.get("cache-control")).toBe("no-store");

    const phone = await TrustedAppClient.enroll(uri!, "Alice's tablet");
    expect(phone.state.sub).toBe("E10001");
    expect(await pollOnce(browser, page, "pending")).toMatchObject({ state: "enrolled", deviceName: "Alice's tablet" });
    const done = await press(browser, page, "CHECK");
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${p.url}/account?enrolled=qrcode`);
    const account = await browser.get(`${p.url}/account`);
    expect(account.text).toContain('name="method" value="qrcode">Remove</button>');
  });

  it("gives the token to the signed-in user's browser only", async () => {
    const { browser, page } = await startEnrollment();
    const { pollUrl } = challengeOf(page);
    expect((await browser.get(pollUrl)).status).toBe(200);
    // No session, or another user's session: nothing, as for an unknown id.
    const stranger = new RawBrowser();
    expect((await stranger.get(pollUrl)).status).toBe(404);
    expect((await stranger.get(`${pollUrl}/qr.svg`)).status).toBe(404);
    const bob = new RawBrowser();
    await loginWithPassword(bob, authorizeUrl(p.issuer), "bob", "bob-password");
    expect((await bob.get(pollUrl)).status).toBe(404);
    expect((await bob.get(`${pollUrl}/qr.svg`)).status).toBe(404);
  });

  it("keeps the token out of the interaction (only the enrollment's id is in the machine's context)", async () => {
    const { browser, page } = await startEnrollment();
    const { uri } = await pollOnce(browser, page);
    const token = new URL(uri!).searchParams.get("token")!;
    const id = new URL(page.url).pathname.split("/").pop()!;
    const stored = JSON.stringify(await p.provider.store.namespace<Interaction>("interactions").get(id));
    expect(stored).toContain(challengeOf(page).challengeId);
    expect(stored).not.toContain(token);
    expect(page.text).not.toContain(token);
  });

  it("cancels the shown token when the page asks for a new code", async () => {
    const { browser, page } = await startEnrollment();
    const { uri } = await pollOnce(browser, page);
    const fresh = await press(browser, page, "REFRESH");
    expect(challengeOf(fresh).challengeId).not.toBe(challengeOf(page).challengeId);
    await expect(TrustedAppClient.enroll(uri!, "late phone")).rejects.toMatchObject({ status: 400, error: "invalid_grant" });
    const next = await pollOnce(browser, fresh);
    await TrustedAppClient.enroll(next.uri!, "right phone");
    expect((await press(browser, fresh, "CHECK")).location).toBe(`${p.url}/account?enrolled=qrcode`);
  });

  it("stays on the QR code while the app has not enrolled", async () => {
    const { browser, page } = await startEnrollment();
    const same = await press(browser, page, "CHECK");
    expect(same.status).toBe(200);
    expect(challengeOf(same)).toEqual(challengeOf(page));
  });
});
