import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import { TrustedAppError } from "../../../src/cli/reference-app/trusted-app-client.ts";
import { DEVICE_JWS_TYPES } from "../../../src/trusted-app/device-jws.ts";
import type { Interaction } from "../../../src/runtime/interaction.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { responseParams } from "../../support/browser-login.ts";
import { hiddenField } from "../../support/raw-browser.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import {
  challengeOf,
  enrolledPhone,
  numberOn,
  openQrLogin,
  pollOnce,
  press,
  providerWithPhone,
} from "../../trusted-app/trusted-app-support.ts";

/**
 * The qrcode method over HTTP, as the page script drives it: the login page shows a QR code, the
 * enrolled phone (the reference client) scans it, the page shows the device and a number, the phone
 * approves with that number, and the page's CHECK finishes the login.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

describe("qrcode login", () => {
  it("logs the scanning device's user in after approval with the number the page shows; amr is qrcode", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    expect(uri).toMatch(/^acmeauth:\/\/login\?issuer=[^&]+&challenge=[A-Za-z0-9_-]{22}$/);
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'nonce-[^']+'/);
    expect(page.text).toMatch(/<script nonce="[^"]+" src="\/methods\/qrcode\/qrcode-page\.js"><\/script>/);
    expect(
      (await browser.get(`${p.url}/methods/qrcode/challenges/${challengeOf(page).challengeId}/qr.svg`)).headers.get("content-type"),
    ).toBe("image/svg+xml");

    await phone.scan(uri);
    // The page's poll learns that something changed, not the number.
    expect(await pollOnce(browser, page, "pending")).toEqual({ state: "scanned" });
    const approval = await press(browser, page, "CHECK");
    expect(approval.text).toContain("Scanned by Alice&#x27;s phone.");
    const number = numberOn(approval);
    expect(number).toMatch(/^[1-9][0-9]$/);
    expect(challengeOf(approval).state).toBe("scanned");

    await phone.approve(number);
    expect(await pollOnce(browser, approval, "scanned")).toEqual({ state: "approved" });
    const done = await press(browser, approval, "CHECK");
    const tokens = await redeemCode(p, responseParams(done).get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["qrcode"], acr: "1fa" });
  });

  it("keeps only the challenge id in the interaction: never the QR code's scan token", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    await phone.scan(uri);
    await press(browser, page, "CHECK");
    const id = new URL(page.url).pathname.split("/").pop()!;
    const stored = JSON.stringify(await p.provider.store.namespace<Interaction>("interactions").get(id));
    expect(stored).toContain(challengeOf(page).challengeId);
    expect(stored).not.toContain(new URL(uri).searchParams.get("challenge")!);
  });

  it("refuses an approval with the wrong number, and the page starts over with a new QR code", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    await phone.scan(uri);
    const approval = await press(browser, page, "CHECK");
    const wrong = String(((Number(numberOn(approval)) - 10 + 1) % 90) + 10);
    const refused = await phone.approve(wrong).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TrustedAppError);
    expect(refused).toMatchObject({ status: 400, error: "access_denied" });
    // The right number no longer helps: the challenge is spent.
    const challenge = new URL(uri).searchParams.get("challenge")!;
    const late = await phone
      .postJws("/approve", await phone.sign(DEVICE_JWS_TYPES.approve, { challenge, number: numberOn(approval) }))
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ status: 400, error: "invalid_grant", description: "this device has not scanned the QR code" });

    expect(await pollOnce(browser, approval, "scanned")).toEqual({ state: "rejected" });
    const again = await press(browser, approval, "CHECK");
    expect(again.status).toBe(200);
    expect(again.text).toContain("The number entered in the app did not match.");
    expect(challengeOf(again).state).toBe("pending");
    expect(challengeOf(again).challengeId).not.toBe(challengeOf(page).challengeId);
    // The old QR code is dead.
    await expect(phone.scan(uri)).rejects.toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("starts over when the app declines", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    await phone.scan(uri);
    const approval = await press(browser, page, "CHECK");
    await phone.deny();
    const again = await press(browser, approval, "CHECK");
    expect(again.text).toContain("The sign-in was declined in the app.");
    expect(challengeOf(again).state).toBe("pending");
  });

  it("ignores a CHECK while nothing changed, and a forged event", async () => {
    const { browser, page } = await openQrLogin(p);
    const same = await press(browser, page, "CHECK");
    expect(challengeOf(same)).toEqual(challengeOf(page));
    const forged = await browser.post(page.url, { csrf: hiddenField(page.text, "csrf")!, event: "APPROVED", sub: "E10002" });
    expect(challengeOf(forged)).toEqual(challengeOf(page));
  });

  it("replaces the QR code on REFRESH, and the old one can no longer be scanned", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    const fresh = await press(browser, page, "REFRESH");
    expect(challengeOf(fresh).challengeId).not.toBe(challengeOf(page).challengeId);
    await expect(phone.scan(uri)).rejects.toMatchObject({ status: 400, error: "invalid_grant" });
    expect((await browser.get(`${p.url}/methods/qrcode/challenges/${challengeOf(page).challengeId}/qr.svg`)).status).toBe(404);
  });

  it("logs one browser in once: the approved challenge is consumed", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    await phone.scan(uri);
    const approval = await press(browser, page, "CHECK");
    await phone.approve(numberOn(approval));
    const [first, second] = await Promise.all([press(browser, approval, "CHECK"), press(browser, approval, "CHECK")]);
    const codes = [first, second].filter((a) => a.status === 303 && new URL(a.location!).searchParams.has("code"));
    expect(codes).toHaveLength(1);
  });

  it("answers a poll of an unknown challenge at once, without a 25-second wait", async () => {
    const started = Date.now();
    const answer = await fetch(`${p.url}/methods/qrcode/challenges/${"x".repeat(22)}?seen=expired`);
    expect(await answer.json()).toEqual({ state: "expired" });
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await fetch(`${p.url}/methods/qrcode/challenges/${"x".repeat(22)}/qr.svg`)).status).toBe(404);
  });

  it("does not let the app read the number: the poll needs the page's challenge id, which the QR code does not hold", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    await phone.scan(uri);
    const scanToken = new URL(uri).searchParams.get("challenge")!;
    expect(await pollOnce(browser, { ...page, text: page.text.replace(challengeOf(page).challengeId, scanToken) })).toEqual({
      state: "expired",
    });
  });
});

describe("qrcode approvals under the attempt limit", () => {
  it("counts wrong approval numbers per account; once locked, the right number is refused exactly like a wrong one", async () => {
    const attempts = p.provider.methods.get("qrcode")!.context.attempts;
    const limit = p.provider.settings.security.password_attempts.max_failures;
    const approveWith = async (pick: (number: string) => string) => {
      const { browser, page, uri } = await openQrLogin(p);
      await phone.scan(uri);
      const number = numberOn(await press(browser, page, "CHECK"));
      return phone.approve(pick(number)).then(
        () => "approved",
        (e: unknown) => e,
      );
    };
    const wrong = (n: string) => String(((Number(n) - 10 + 1) % 90) + 10);
    try {
      for (let i = 0; i < limit; i++) expect(await approveWith(wrong)).toMatchObject({ status: 400, error: "access_denied" });
      expect(await attempts.count("E10001")).toBe(limit);
      const locked = await approveWith((n) => n);
      expect(locked).toBeInstanceOf(TrustedAppError);
      expect(locked).toMatchObject({
        status: 400,
        error: "access_denied",
        description: "the number does not match the one on the sign-in page",
      });
    } finally {
      await attempts.succeeded("E10001");
    }
    expect(await approveWith((n) => n)).toBe("approved");
  });
});

describe("qrcode QR expiry", () => {
  let short: TestProvider;
  let shortPhone: TrustedAppClient;
  beforeAll(async () => {
    short = await startTestProvider({ edits: { "login.yaml": { "methods.qrcode.challenge_ttl": "2s" } } });
    shortPhone = await enrolledPhone(short);
  });
  afterAll(() => short.close());

  it("tells the waiting page that the QR code expired; REFRESH shows a new one, and the old one is refused", async () => {
    const { browser, page, uri } = await openQrLogin(short);
    const started = Date.now();
    // The long-poll waits for the change and answers when the QR code expires.
    expect(await pollOnce(browser, page, "pending")).toEqual({ state: "expired" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    await expect(shortPhone.scan(uri)).rejects.toMatchObject({
      status: 400,
      error: "invalid_grant",
      description: "the QR code has expired",
    });
    const fresh = await press(browser, page, "REFRESH");
    expect(fresh.text).not.toContain("The code expired.");
    const next = await pollOnce(browser, fresh);
    expect(next.state).toBe("pending");
    // The new one works to the end.
    await shortPhone.scan(next.uri!);
    const approval = await press(browser, fresh, "CHECK");
    await shortPhone.approve(numberOn(approval));
    const done = await press(browser, approval, "CHECK");
    expect(responseParams(done).get("code")).toBeTruthy();
  });

  it("refuses an approval after the scanned challenge expired, and the page says so with a new QR code", async () => {
    const { browser, page, uri } = await openQrLogin(short);
    await shortPhone.scan(uri);
    const approval = await press(browser, page, "CHECK");
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await expect(shortPhone.approve(numberOn(approval))).rejects.toMatchObject({ status: 400, error: "invalid_grant" });
    const again = await press(browser, approval, "CHECK");
    expect(again.text).toContain("The code expired. Scan the new one.");
    expect(challengeOf(again).state).toBe("pending");
  });
});
