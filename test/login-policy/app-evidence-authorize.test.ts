import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import type { TestProvider } from "../support/test-provider.ts";
import { authorizeUrl, responseParams } from "../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../support/code-grant.ts";
import { numberOn, openQrLogin, pollOnce, press, providerWithPhone } from "../trusted-app/trusted-app-support.ts";

/**
 * acr_values app_gps and app_faceid through /connect/authorize: the plan offers only the trusted app's
 * QR scan, the QR asks the app for its position and face check, the reference app signs them into its
 * scan, and the ID token carries `gps` and `faceid`. Without them the scan is refused: no code.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

const WANTED = { acr_values: "app_gps app_faceid" };

describe("acr_values app_gps app_faceid", () => {
  it("puts the app's signed position and face check into the ID token", async () => {
    const { browser, page, uri } = await openQrLogin(p, WANTED);
    // Only the app's scan is offered: no password form, no other method to switch to.
    expect(page.text).not.toContain('name="password"');
    expect(page.text).not.toContain('value="CHOOSE_METHOD"');
    expect(new URL(uri).searchParams.get("req")).toBe("gps,faceid");
    await phone.scan(uri, { gps: { lat: 25.03, lnt: 121.56 }, faceid: "pass" });
    const approval = await press(browser, page, "CHECK");
    await phone.approve(numberOn(approval));
    expect(await pollOnce(browser, approval, "scanned")).toEqual({ state: "approved" });
    const params = responseParams(await press(browser, approval, "CHECK"));
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    const claims = await verifyIdToken(p, tokens.json!.id_token as string);
    expect(claims).toMatchObject({ sub: "E10001", amr: ["qrcode"], gps: { lat: 25.03, lnt: 121.56 }, faceid: { result: "pass" } });
    expect(typeof (claims.gps as { time: unknown }).time).toBe("number");
    expect(typeof (claims.faceid as { key: unknown }).key).toBe("string");
  });

  it("refuses a scan without the position the request asked for: the page says why and no code is issued", async () => {
    const { browser, page, uri } = await openQrLogin(p, { acr_values: "app_gps" });
    await expect(phone.scan(uri)).rejects.toThrow();
    const after = await press(browser, page, "CHECK");
    expect(after.status).toBe(200);
    expect(after.location).toBeUndefined();
  });
});

describe("acr_values must_bfido", () => {
  it("offers only the trusted app's FIDO2 over a QR code, and a password session does not satisfy it", async () => {
    await phone.bfidoRegister();
    const { browser, page, uri } = await openQrLogin(p, { acr_values: "must_bfido" });
    expect(uri).toMatch(/^acmeauth:\/\/bfido\?/);
    expect(page.text).not.toContain('value="CHOOSE_METHOD"');
    await phone.bfidoScan(uri);
    expect(await pollOnce(browser, page, "pending")).toEqual({ state: "verified" });
    const params = responseParams(await press(browser, page, "CHECK"));
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["bfido"] });
    // The session now has bfido: must_bfido is answered from it.
    const sso = responseParams(await browser.get(authorizeUrl(p.issuer, { acr_values: "must_bfido", prompt: "none" })));
    expect(sso.get("code")).toBeTruthy();
  });
});
