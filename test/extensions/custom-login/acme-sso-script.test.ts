import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ContextPerTest } from "../../support/browser-methods.ts";
import { chromiumAvailable, launchChromium } from "../../support/chromium.ts";
import {
  DEFAULT_PROMPTS,
  startCustomLoginStandIn,
  type AcmeSsoCall,
  type CustomLoginStandIn,
} from "../../support/custom-login-stand-in.ts";

/**
 * The AcmeSSO script in Chromium, on a third-party page with jQuery 1.7 and with jQuery 4, against a
 * stand-in of the provider's endpoints (test/support/custom-login-stand-in.ts): the test plays the
 * phone by setting the scan session's state. The page counts its own XMLHttpRequests, so "polling
 * stopped" is checked where it happens: the script polls again in the same task that shows a state.
 */
const SUITE = "AcmeSSO script suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
const WAIT = { timeout: 20_000 };
// Each test waits for several conditions in turn; a busy machine gets time for all of them.
vi.setConfig({ testTimeout: 60_000 });

/** Counts every XMLHttpRequest the page sends, how many are open at once, and the most ever open. */
function countRequests(): void {
  const counts = { sent: 0, open: 0, maxOpen: 0 };
  (window as unknown as { requests: typeof counts }).requests = counts;
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    counts.sent++;
    counts.open++;
    counts.maxOpen = Math.max(counts.maxOpen, counts.open);
    // Registered before jQuery's own handlers run, so a request counts as closed before the next one is sent.
    let closed = false;
    const close = (): void => {
      if (!closed && this.readyState === 4) {
        closed = true;
        counts.open--;
      }
    };
    this.addEventListener("readystatechange", close);
    this.addEventListener("loadend", close);
    return send.call(this, body);
  };
}

type Requests = { sent: number; open: number; maxOpen: number };
const requestsOf = (page: Page): Promise<Requests> => page.evaluate(() => (window as unknown as { requests: Requests }).requests);

describe.skipIf(!haveChromium).each(["1.7", "4"] as const)("AcmeSSO with jQuery %s", (jq) => {
  let browser: Browser;
  let standIn: CustomLoginStandIn;
  const contexts = new ContextPerTest(() => browser);

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    standIn = await startCustomLoginStandIn();
  });
  afterEach(async () => {
    await contexts.close();
    await standIn.close();
  });

  /** Opens the third-party page; its first poll has reached the stand-in and is held there. */
  async function openPage(calls?: AcmeSsoCall[], loginJs?: Record<string, string>): Promise<Page> {
    const page = await contexts.page();
    await page.addInitScript(countRequests);
    await page.goto(standIn.pageUrl(jq, calls, loginJs));
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    return page;
  }

  const qr = (page: Page, container = "#qr") => page.locator(`${container} img.acme-sso-qr`);
  const prompt = (page: Page, container = "#qr") => page.locator(`${container} p.acme-sso-prompt`);
  const classesOf = (page: Page, container = "#qr") => page.locator(container).getAttribute("class");

  /** The phone side moves the current session on; waits until the page shows the new state. */
  async function phone(page: Page, state: "scanned" | "auditing" | "approved" | "refused" | "expired" | "waiting"): Promise<void> {
    standIn.setState(standIn.current().sessionId, state);
    if (state !== "approved" && state !== "expired") await expect.poll(() => classesOf(page), WAIT).toContain(`acme-sso-state-${state}`);
  }

  /** Every request the page sent has reached the stand-in and none is open: the poller has stopped. */
  async function expectStopped(page: Page): Promise<void> {
    const requests = await requestsOf(page);
    expect(requests.open).toBe(0);
    await expect.poll(() => standIn.polls.length + standIn.renewals.length, WAIT).toBe(requests.sent);
    expect(standIn.pollsInFlight).toBe(0);
  }

  it(`runs on jQuery ${jq}`, async () => {
    const page = await openPage();
    expect(await page.evaluate(() => (window as unknown as { jQuery: { fn: { jquery: string } } }).jQuery.fn.jquery)).toBe(
      jq === "1.7" ? "1.7.2" : "4.0.0",
    );
  });

  it("draws the QR of the phone-side URL at 180 px with 30 px margins, the scan prompt and the default style", async () => {
    const page = await openPage();
    const session = standIn.current();
    const img = qr(page);
    await expect.poll(() => img.getAttribute("data-uri"), WAIT).toBe(session.qrUri);
    expect(new URL(session.qrUri).searchParams.get("state")).toBe(`${session.sessionId}|`);
    expect(await img.getAttribute("src")).toMatch(/^data:image\/svg\+xml;base64,/);
    expect([await img.getAttribute("width"), await img.getAttribute("height")]).toEqual(["180", "180"]);
    expect(await img.getAttribute("alt")).toBe(DEFAULT_PROMPTS.scanPrompt);
    expect(
      await img.evaluate((e) => [e.getBoundingClientRect().width, getComputedStyle(e).marginTop, getComputedStyle(e).marginBottom]),
    ).toEqual([180, "30px", "30px"]);
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.scanPrompt);
    expect(await page.getByRole("status").textContent()).toBe(DEFAULT_PROMPTS.scanPrompt);
    expect(await classesOf(page)).toBe("acme-sso acme-sso-state-waiting");
    expect(await page.locator("style#acme-sso-default-style").count()).toBe(1);
    expect(await img.evaluate((e) => getComputedStyle(e).display)).toBe("block");
  });

  it("uses the size, margins and prompts given as options", async () => {
    const options = {
      imgSize: 120,
      imgMarginTop: 5,
      imgMarginBottom: 12,
      scanPrompt: "scan <b>me</b>",
      s0Prompt: "own s0",
      s5Prompt: "own s5",
      s10Prompt: "own s10",
    };
    const page = await openPage([{ selector: "#qr", options }]);
    const img = qr(page);
    expect([await img.getAttribute("width"), await img.getAttribute("height"), await img.getAttribute("alt")]).toEqual([
      "120",
      "120",
      "scan <b>me</b>",
    ]);
    expect(await img.evaluate((e) => [getComputedStyle(e).marginTop, getComputedStyle(e).marginBottom])).toEqual(["5px", "12px"]);
    expect(await prompt(page).textContent()).toBe("scan <b>me</b>");
    expect(await page.locator("#qr b").count()).toBe(0);
    await phone(page, "scanned");
    expect(await prompt(page).textContent()).toBe("own s0");
    await phone(page, "auditing");
    expect(await prompt(page).textContent()).toBe("own s5");
    standIn.setState(standIn.current().sessionId, "approved");
    await page.waitForURL(`${standIn.providerUrl}/Acme/CustomLogin/Authorize`, WAIT);
  });

  it("with useDefaultCsss false adds no style element and no inline style but the margins", async () => {
    const page = await openPage([{ selector: "#qr", options: { useDefaultCsss: false } }]);
    expect(await page.locator("style").count()).toBe(0);
    expect(await qr(page).getAttribute("style")).toBe("margin-top: 30px; margin-bottom: 30px;");
    expect(await prompt(page).getAttribute("style")).toBeNull();
    expect(await classesOf(page)).toBe("acme-sso acme-sso-state-waiting");
  });

  it("long-polls with the state it shows and shows each state's default prompt", async () => {
    const page = await openPage([{ selector: "#qr" }], { PCState: "pc-state" });
    const { sessionId, binding } = standIn.current();
    standIn.releasePolls(); // the provider's 25 s pass without a change: the script asks again
    await expect.poll(() => standIn.polls.length, WAIT).toBe(2);
    await phone(page, "scanned");
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.s0Prompt);
    expect(await qr(page).isVisible()).toBe(false);
    await phone(page, "auditing");
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.s5Prompt);
    await expect.poll(() => standIn.polls.length, WAIT).toBe(4);
    expect(standIn.polls).toEqual(["waiting", "waiting", "scanned", "auditing"].map((seen) => ({ session_id: sessionId, binding, seen })));
  });

  it("once approved shows s10 and posts exactly session_id, binding and the PC authorize request to Authorize", async () => {
    const page = await openPage([{ selector: "#qr" }], { PCState: "pc|state", PCScope: "openid profile", PCClientId: "demo-fourth-party" });
    const { sessionId, binding } = standIn.current();
    await phone(page, "scanned");
    // The page is gone once the form posts: it reports each prompt it shows on the console meanwhile.
    const prompts: string[] = [];
    page.on("console", (line) => {
      if (line.text().startsWith("prompt: ")) prompts.push(line.text().slice(8));
    });
    await page.evaluate(() => {
      const shown = document.querySelector("#qr p.acme-sso-prompt")!;
      new MutationObserver(() => console.log(`prompt: ${shown.textContent}`)).observe(shown, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    standIn.setState(sessionId, "approved");
    await page.waitForURL(`${standIn.providerUrl}/Acme/CustomLogin/Authorize`, WAIT);
    expect(await page.locator("#authorized").textContent()).toBe("posted");
    expect(prompts).toEqual([DEFAULT_PROMPTS.s10Prompt]);
    expect(standIn.authorizations).toEqual([
      [
        ["session_id", sessionId],
        ["binding", binding],
        ["client_id", "demo-fourth-party"],
        ["redirect_uri", `${standIn.siteUrl}/custom-login/pc`],
        ["scope", "openid profile"],
        ["response_type", "code"],
        ["state", "pc|state"],
      ],
    ]);
  });

  it("leaves state out of the PC authorize request when the page gave no PCState", async () => {
    const page = await openPage();
    standIn.setState(standIn.current().sessionId, "approved");
    await page.waitForURL(`${standIn.providerUrl}/Acme/CustomLogin/Authorize`, WAIT);
    expect(standIn.authorizations.map((form) => form.map(([name]) => name))).toEqual([
      ["session_id", "binding", "client_id", "redirect_uri", "scope", "response_type"],
    ]);
  });

  it("renews an expired QR and goes on polling with the new session id and binding", async () => {
    const page = await openPage();
    const old = standIn.current();
    await phone(page, "expired");
    await expect.poll(() => standIn.sessions.length, WAIT).toBe(2);
    const fresh = standIn.current();
    expect(standIn.renewals).toEqual([{ session_id: old.sessionId, binding: old.binding }]);
    expect(fresh.renewedFrom).toBe(old.sessionId);
    await expect.poll(() => qr(page).getAttribute("data-uri"), WAIT).toBe(fresh.qrUri);
    expect(fresh.qrUri).not.toBe(old.qrUri);
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    expect(standIn.polls.at(-1)).toEqual({ session_id: fresh.sessionId, binding: fresh.binding, seen: "waiting" });
    expect(await classesOf(page)).toBe("acme-sso acme-sso-state-waiting");
    expect(await qr(page).isVisible()).toBe(true);
    await phone(page, "scanned");
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.s0Prompt);
    standIn.setState(fresh.sessionId, "approved");
    await page.waitForURL(`${standIn.providerUrl}/Acme/CustomLogin/Authorize`, WAIT);
    expect(standIn.authorizations[0]?.slice(0, 2)).toEqual([
      ["session_id", fresh.sessionId],
      ["binding", fresh.binding],
    ]);
  });

  it("shows the scan prompt with a reload hint and stops when the renewal is refused", async () => {
    const page = await openPage();
    standIn.renewFailure = 400;
    await phone(page, "expired");
    await expect.poll(() => classesOf(page), WAIT).toBe("acme-sso acme-sso-state-stale");
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.scanPrompt);
    expect(await page.locator("#qr .acme-sso-reload").textContent()).toBe("Reload the page for a new code.");
    expect(await page.locator("#qr .acme-sso-reload").isVisible()).toBe(true);
    expect(await qr(page).isVisible()).toBe(false);
    await expectStopped(page);
    expect(standIn.renewals).toHaveLength(1);
  });

  it("asks again after a failed renewal that was not a refusal (503), and renews then", async () => {
    const page = await openPage();
    const old = standIn.current();
    standIn.renewFailure = 503;
    await phone(page, "expired");
    await expect.poll(() => classesOf(page), WAIT).toContain("acme-sso-offline");
    await expect.poll(() => standIn.sessions.length, WAIT).toBe(2); // after the back-off: Status says expired, Renew works
    await expect.poll(() => qr(page).getAttribute("data-uri"), WAIT).toBe(standIn.current().qrUri);
    expect(standIn.renewals).toEqual([1, 2].map(() => ({ session_id: old.sessionId, binding: old.binding })));
    await expect.poll(() => classesOf(page), WAIT).toBe("acme-sso acme-sso-state-waiting");
  });

  it("stops renewing after 30 QR codes in a row expired unscanned", async () => {
    standIn.expireEverySession = true;
    const page = await contexts.page();
    await page.addInitScript(countRequests);
    await page.goto(standIn.pageUrl(jq));
    await expect.poll(() => classesOf(page), WAIT).toBe("acme-sso acme-sso-state-stale");
    await expectStopped(page);
    expect([standIn.renewals.length, standIn.sessions.length]).toEqual([30, 31]);
  });

  it("shows the refusal, hides the QR and stops polling when refused", async () => {
    const page = await openPage();
    await phone(page, "scanned");
    await phone(page, "refused");
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.sn10Prompt);
    expect(await qr(page).isVisible()).toBe(false);
    await expectStopped(page);
    expect(standIn.authorizations).toEqual([]);
  });

  it("never has two polls in flight, through timeouts, errors, state changes and a renewal", async () => {
    const page = await openPage();
    for (let round = 1; round <= 3; round++) {
      standIn.releasePolls();
      await expect.poll(() => standIn.polls.length, WAIT).toBe(round + 1);
      await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    }
    standIn.failHeldPolls();
    await expect.poll(() => classesOf(page), WAIT).toContain("acme-sso-offline");
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1); // the retry, after the back-off
    await phone(page, "expired");
    await expect.poll(() => standIn.sessions.length, WAIT).toBe(2);
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    await phone(page, "scanned");
    expect(await classesOf(page)).toBe("acme-sso acme-sso-state-scanned");
    await phone(page, "auditing");
    await phone(page, "refused");
    await expectStopped(page);
    expect([standIn.maxPollsInFlight, (await requestsOf(page)).maxOpen]).toEqual([1, 1]);
  });

  it("waits longer after each failed poll before asking again, and recovers", async () => {
    const page = await contexts.page();
    await page.addInitScript(countRequests);
    await page.clock.install();
    await page.goto(standIn.pageUrl(jq));
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    // Stop the page's time ahead of now (far enough for a busy machine; the only timer, the poll's 40 s time-out, is later).
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 20_000);
    const sentBefore = (await requestsOf(page)).sent;

    // First failure: the retry comes after 1 to 2 s (2 s, shortened by up to half at random).
    standIn.failHeldPolls();
    await expect.poll(() => classesOf(page), WAIT).toContain("acme-sso-offline");
    await page.clock.runFor(999);
    expect((await requestsOf(page)).sent).toBe(sentBefore);
    await page.clock.runFor(1001);
    expect((await requestsOf(page)).sent).toBe(sentBefore + 1);

    // Second failure in a row: 2 to 4 s.
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    standIn.failHeldPolls();
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(0);
    await expect.poll(async () => (await requestsOf(page)).open, WAIT).toBe(0);
    await page.clock.runFor(1999);
    expect((await requestsOf(page)).sent).toBe(sentBefore + 1);
    await page.clock.runFor(2001);
    expect((await requestsOf(page)).sent).toBe(sentBefore + 2);

    // An answer ends the offline mark.
    await expect.poll(() => standIn.pollsInFlight, WAIT).toBe(1);
    await phone(page, "scanned");
    expect(await classesOf(page)).toBe("acme-sso acme-sso-state-scanned");
  });

  it("draws a second AcmeSSO of the same session without a second poller, and posts the login once", async () => {
    const page = await openPage([{ selector: "#qr" }, { selector: "#qr2", options: { s0Prompt: "second s0" } }, { selector: "#qr" }]);
    const { qrUri, sessionId } = standIn.current();
    expect(await page.locator("#qr img").count()).toBe(1);
    expect(await qr(page, "#qr2").getAttribute("data-uri")).toBe(qrUri);
    await phone(page, "scanned");
    await expect.poll(() => prompt(page, "#qr2").textContent(), WAIT).toBe("second s0");
    expect(await prompt(page).textContent()).toBe(DEFAULT_PROMPTS.s0Prompt);
    standIn.setState(sessionId, "approved");
    await page.waitForURL(`${standIn.providerUrl}/Acme/CustomLogin/Authorize`, WAIT);
    expect([standIn.maxPollsInFlight, standIn.polls.length, standIn.authorizations.length]).toEqual([1, 2, 1]);
  });

  it("the error script logs its message and writes it into the container as text", async () => {
    const message = 'PCRedirectUrl is not registered: <img src=x onerror="window.pwned=1"></script>';
    standIn.loginError = message;
    const page = await contexts.page();
    const consoleErrors: string[] = [];
    page.on("console", (line) => {
      if (line.type() === "error") consoleErrors.push(line.text());
    });
    await page.goto(standIn.pageUrl(jq));
    await expect.poll(() => page.locator("#qr").textContent(), WAIT).toBe(message);
    expect(await page.locator("#qr *").count()).toBe(0);
    expect(await classesOf(page)).toBe("acme-sso acme-sso-error");
    expect(await page.evaluate(() => "pwned" in window)).toBe(false);
    expect(consoleErrors).toEqual([`AcmeSSO: ${message}`]);
  });
});

describe.skipIf(!haveChromium)("the AcmeSSO error script without jQuery", () => {
  let browser: Browser;
  let standIn: CustomLoginStandIn;
  const contexts = new ContextPerTest(() => browser);

  beforeAll(async () => {
    [browser, standIn] = await Promise.all([launchChromium(), startCustomLoginStandIn()]);
  });
  afterAll(async () => {
    await contexts.close();
    await browser?.close();
    await standIn?.close();
  });

  it("writes the message with the DOM when the page has no jQuery", async () => {
    standIn.loginError = "clientId is required <b>";
    const page = await contexts.page();
    const consoleErrors: string[] = [];
    page.on("console", (line) => {
      if (line.type() === "error") consoleErrors.push(line.text());
    });
    await page.goto(standIn.pageUrl("none"));
    await expect.poll(() => page.locator("#qr").textContent(), WAIT).toBe("clientId is required <b>");
    expect(await page.locator("#qr b").count()).toBe(0);
    expect(await classesOf(page)).toBe("acme-sso acme-sso-error");
    expect(consoleErrors).toEqual(["AcmeSSO: clientId is required <b>"]);
  });

  it("is not run by the browser when LoginJs answers it with 400 (the error script needs a 200)", async () => {
    standIn.loginError = "clientId is required";
    standIn.loginErrorStatus = 400;
    const page = await contexts.page();
    const consoleErrors: string[] = [];
    page.on("console", (line) => {
      if (line.type() === "error") consoleErrors.push(line.text());
    });
    await page.goto(standIn.pageUrl("none"));
    await expect.poll(() => consoleErrors.some((line) => line.includes("400")), WAIT).toBe(true);
    expect(await page.evaluate(() => typeof (window as unknown as { AcmeSSO?: unknown }).AcmeSSO)).toBe("undefined");
    expect(consoleErrors.some((line) => line.startsWith("AcmeSSO:"))).toBe(false);
  });

  const classesOf = (page: Page) => page.locator("#qr").getAttribute("class");
});
