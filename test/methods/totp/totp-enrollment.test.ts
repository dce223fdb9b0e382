import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseParams } from "../../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { extraUsers, openMethodPage, signInWithPassword, startEnrollment, submitStep } from "../../support/method-pages.ts";
import { hiddenField, RawBrowser, type Answer } from "../../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import type { Interaction } from "../../../src/runtime/interaction.ts";

/**
 * Enrolling TOTP over HTTP: from the account page of a signed-in user, through the page's single-use
 * secret route, to the confirming code; and the operator's enrollment.
 */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "users.yaml": extraUsers(["carol"]),
      "login.yaml": { "default_flow.methods": ["totp", "password"], "methods.totp.issuer": "Acme SSO" },
    },
  });
});
afterAll(() => p.close());

const dataOf = (page: Answer, name: string) => new RegExp(`data-${name}="([^"]*)"`).exec(page.text)?.[1];

/** What the page's script fetches: the secret its handle shows (once). */
function showSecret(page: Answer) {
  return fetch(`${p.url}${dataOf(page, "url")}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ handle: dataOf(page, "handle") }),
  });
}

/** A code of `secret` `steps` periods from now. */
const codeOf = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

async function aliceEnrolling(): Promise<{ browser: RawBrowser; page: Answer }> {
  const browser = new RawBrowser();
  await signInWithPassword(browser, p.issuer, "alice");
  const page = await startEnrollment(browser, p.url, "totp");
  expect(page.status).toBe(200);
  return { browser, page };
}

describe("TOTP enrollment", () => {
  it("shows a new secret once as an otpauth:// QR code and text, and records it sealed after one valid code", async () => {
    const { browser, page } = await aliceEnrolling();
    expect(page.text).toContain('name="event" value="SUBMIT_CODE"');
    expect(page.text).toMatch(/<script nonce="[A-Za-z0-9_-]{16,}" src="\/methods\/totp\/enroll\.js"><\/script>/);
    expect(dataOf(page, "url")).toBe("/methods/totp/enrollment-secret");

    const shown = await showSecret(page);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    const { secret, uri, qr } = (await shown.json()) as { secret: string; uri: string; qr: string };
    const otpauth = new URL(uri);
    expect(otpauth.protocol).toBe("otpauth:");
    expect(otpauth.host).toBe("totp");
    expect(decodeURIComponent(otpauth.pathname)).toBe("/Acme SSO:alice");
    expect(otpauth.searchParams.get("issuer")).toBe("Acme SSO");
    expect(otpauth.searchParams.get("secret")).toMatch(/^[A-Z2-7]{32}$/);
    expect(secret.replaceAll(" ", "")).toBe(otpauth.searchParams.get("secret"));
    expect(qr).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    // Once: the handle shows nothing the second time.
    expect((await showSecret(page)).status).toBe(404);

    const base32 = otpauth.searchParams.get("secret")!;
    const done = await submitStep(browser, page, { event: "SUBMIT_CODE", code: await codeOf(base32) });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${p.url}/account?enrolled=totp`);
    const record = await p.provider.enrollments.get("totp", "E10001");
    expect(record?.data).toMatchObject({ digits: 6, period: 30, secret: expect.stringMatching(/^v1\./) });
    expect(JSON.stringify(record)).not.toContain(base32);

    // The code that finished the enrollment cannot log in (its step is used); the next one can.
    const login = async (code: string) => {
      const browser = new RawBrowser();
      return submitStep(browser, await openMethodPage(browser, p.issuer, "totp", "alice"), { event: "SUBMIT_CODE", code });
    };
    expect((await login(await codeOf(base32))).status).toBe(200);
    const answer = await login(await codeOf(base32, 1));
    const tokens = await redeemCode(p, responseParams(answer).get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["totp"] });
  });

  it("keeps the plain secret out of the persisted interaction", async () => {
    const { page } = await aliceEnrolling();
    const { uri } = (await (await showSecret(page)).json()) as { uri: string };
    const base32 = new URL(uri).searchParams.get("secret")!;
    const id = new URL(page.url).pathname.split("/").pop()!;
    const stored = await p.provider.store.namespace<Interaction>("interactions").get(id);
    expect(JSON.stringify(stored)).toContain('"pending":{"secret":"v1.');
    expect(JSON.stringify(stored)).not.toContain(base32);
    expect(page.text).not.toContain(base32);
  });

  it("refuses a wrong code and shows the same secret again through a new handle", async () => {
    const { browser, page } = await aliceEnrolling();
    const first = (await (await showSecret(page)).json()) as { uri: string };
    const right = await codeOf(new URL(first.uri).searchParams.get("secret")!);
    const wrong = await submitStep(browser, page, { event: "SUBMIT_CODE", code: right === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain("The code is incorrect.");
    expect(dataOf(wrong, "handle")).not.toBe(dataOf(page, "handle"));
    const again = (await (await showSecret(wrong)).json()) as { uri: string };
    expect(again.uri).toBe(first.uri);
  });

  it("starts over with a new secret on RESTART, and refuses the old one's code", async () => {
    const { browser, page } = await aliceEnrolling();
    const old = new URL(((await (await showSecret(page)).json()) as { uri: string }).uri).searchParams.get("secret")!;
    const restarted = await submitStep(browser, page, { event: "RESTART" });
    expect(restarted.status).toBe(200);
    const fresh = new URL(((await (await showSecret(restarted)).json()) as { uri: string }).uri).searchParams.get("secret")!;
    expect(fresh).not.toBe(old);
    const refused = await submitStep(browser, restarted, { event: "SUBMIT_CODE", code: await codeOf(old) });
    expect(refused.text).toContain("The code is incorrect.");
  });

  it("refuses a body with the handle twice (400 invalid_request) without showing the secret, which the plain body then shows", async () => {
    const { page } = await aliceEnrolling();
    const body = `{"handle":"${"x".repeat(32)}","handle":"${dataOf(page, "handle")}"}`;
    const twice = await fetch(`${p.url}/methods/totp/enrollment-secret`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual({
      error: "invalid_request",
      error_description: "the body has the member 'handle' twice in one object",
    });
    // Shown once per handle: the refused body did not spend it.
    expect((await showSecret(page)).status).toBe(200);
  });

  it("answers 404 for an unknown, malformed or missing handle", async () => {
    for (const body of [{ handle: "x".repeat(32) }, { handle: 42 }, {}, { handle: "y".repeat(500) }]) {
      const res = await fetch(`${p.url}/methods/totp/enrollment-secret`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(404);
    }
  });

  it("serves the page script as JavaScript", async () => {
    const res = await fetch(`${p.url}/methods/totp/enroll.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toContain("dataset.handle");
  });

  it("is enrolled by an operator: a new secret, returned as an otpauth:// URI that logs the user in", async () => {
    const totp = p.provider.methods.get("totp")!;
    const uri = await totp.plugin.enrollByOperator!(totp.context, "T1000", {});
    expect(uri).toMatch(/^otpauth:\/\/totp\/Acme%20SSO:carol\?secret=[A-Z2-7]{32}&issuer=Acme%20SSO$/);
    const browser = new RawBrowser();
    const page = await openMethodPage(browser, p.issuer, "totp", "carol");
    const answer = await submitStep(browser, page, { event: "SUBMIT_CODE", code: await codeOf(new URL(uri).searchParams.get("secret")!) });
    expect(responseParams(answer).get("code")).toBeTruthy();
    await expect(totp.plugin.enrollByOperator!(totp.context, "T1000", { digits: "8" })).rejects.toThrow("takes no options (got digits)");
  });

  it("refuses the account page's enroll form without the session's CSRF token", async () => {
    const browser = new RawBrowser();
    await signInWithPassword(browser, p.issuer, "alice");
    const answer = await browser.post(`${p.url}/account/enroll`, { csrf: "forged", method: "totp" });
    expect(answer.status).toBe(403);
    expect(hiddenField(answer.text, "csrf")).toBeUndefined();
  });
});
