import { createActor, toPromise, type AnyActorLogic } from "xstate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { authorizeUrl, responseParams } from "../../support/browser-login.ts";
import { formAction, hiddenField, RawBrowser, type Answer } from "../../support/raw-browser.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { enrolledPhone } from "../../trusted-app/trusted-app-support.ts";
import { comparablePage } from "../../support/method-pages.ts";

/**
 * The appotp method over HTTP: the user (from login_hint, else the user-name form) types the dynamic
 * code of their enrolled phone. Its attempt limit (3 here) counts every attempt, concurrent ones
 * included, and a locked account gets exactly the wrong-code page.
 */
let p: TestProvider;
let alice: TrustedAppClient;
let bob: TrustedAppClient;
beforeAll(async () => {
  p = await startTestProvider({ edits: { "login.yaml": { "methods.appotp.attempts": { max_failures: 3, window: "15m" } } } });
  alice = await enrolledPhone(p, "E10001", "Alice's phone");
  bob = await enrolledPhone(p, "E10002", "Bob's phone");
});
afterAll(() => p.close());

function submit(browser: RawBrowser, page: Answer, fields: Record<string, string>): Promise<Answer> {
  return browser.post(formAction(page.text, page.url), { csrf: hiddenField(page.text, "csrf") ?? "", ...fields });
}

/** A browser on the appotp code page for `loginHint` (the demo flow starts with qrcode: choose appotp). */
async function codePage(loginHint: string): Promise<{ browser: RawBrowser; page: Answer }> {
  const browser = new RawBrowser();
  const login = await browser.follow(await browser.get(authorizeUrl(p.issuer, { login_hint: loginHint })));
  const page = await submit(browser, login, { event: "CHOOSE_METHOD", method: "appotp" });
  expect(page.text).toContain('name="event" value="SUBMIT_CODE"');
  return { browser, page };
}

/** The page without what differs between any two page loads (CSRF token, interaction id, nonce, the app entry's request). */
const normalise = comparablePage;

/** The plugin's checkCode actor, run as the flow runs it. */
function checkCode(input: { sub: string; code: string }): Promise<{ accepted: boolean }> {
  const logic = p.provider.methods.get("appotp")!.actors.checkCode as AnyActorLogic;
  return toPromise(createActor(logic, { input }).start()) as Promise<{ accepted: boolean }>;
}

describe("appotp login", () => {
  it("logs the user in with the phone's dynamic code; amr is appotp", async () => {
    const { browser, page } = await codePage("alice");
    expect(page.text).toContain("Open the mobile app and enter the code it shows.");
    const done = await submit(browser, page, { event: "SUBMIT_CODE", code: await alice.code() });
    const tokens = await redeemCode(p, responseParams(done).get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["appotp"], acr: "1fa" });
  });

  it("refuses the same code again (replay in its time step) with the wrong-code message", async () => {
    const code = await bob.code();
    const first = await codePage("bob");
    expect(responseParams(await submit(first.browser, first.page, { event: "SUBMIT_CODE", code })).get("code")).toBeTruthy();
    const second = await codePage("bob");
    const replay = await submit(second.browser, second.page, { event: "SUBMIT_CODE", code });
    expect(replay.status).toBe(200);
    expect(replay.text).toContain("The code is incorrect or has already been used.");
  });

  it("refuses codes two steps away", async () => {
    for (const offset of [-60_000, 60_000]) {
      const { browser, page } = await codePage("alice");
      const answer = await submit(browser, page, { event: "SUBMIT_CODE", code: await alice.code(Date.now() + offset) });
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("The code is incorrect or has already been used.");
    }
    // Two wrong attempts counted; a pass resets them.
    await p.provider.methods.get("appotp")!.context.attempts.succeeded("E10001");
  });

  it("shows an unknown user the same page and never accepts a code for them", async () => {
    const { browser, page } = await codePage("nobody-at-all");
    const answer = await submit(browser, page, { event: "SUBMIT_CODE", code: await alice.code() });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("The code is incorrect or has already been used.");
  });
});

describe("appotp attempt limits", () => {
  it("counts every one of 50 concurrent wrong codes", async () => {
    const attempts = p.provider.methods.get("appotp")!.context.attempts;
    const sub = "E10099"; // anyone: attempts are counted before the user is looked at
    const verdicts = await Promise.all(Array.from({ length: 50 }, (_, i) => checkCode({ sub, code: String(100000 + i) })));
    expect(verdicts.every((v) => !v.accepted)).toBe(true);
    expect(await attempts.count(sub)).toBe(50);
  });

  it("locks after the configured failures, and the locked page is the wrong-code page", async () => {
    const attempts = p.provider.methods.get("appotp")!.context.attempts;
    await attempts.succeeded("E10002"); // a clean slate after the replay test's refusal
    const pages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { browser, page } = await codePage("bob");
      pages.push((await submit(browser, page, { event: "SUBMIT_CODE", code: "000000" })).text);
    }
    expect(await attempts.count("E10002")).toBe(3);
    // Locked now: the right code gets exactly the wrong code's page, and is not used up.
    const { browser, page } = await codePage("bob");
    // The next step's code (within the ±1 window; the current step was used by the replay test).
    const code = await bob.code(Date.now() + 30_000);
    const locked = await submit(browser, page, { event: "SUBMIT_CODE", code });
    expect(locked.status).toBe(200);
    expect(normalise(locked.text)).toBe(normalise(pages[0]!));
    // The window passes (here: an operator resets it): the same code works, it was not claimed.
    await attempts.succeeded("E10002");
    const unlocked = await codePage("bob");
    expect(responseParams(await submit(unlocked.browser, unlocked.page, { event: "SUBMIT_CODE", code })).get("code")).toBeTruthy();
  });
});
