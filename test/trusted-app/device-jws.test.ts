import { pluginServices } from "../../src/infra/live-services.ts";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrustedAppClient, TrustedAppError } from "../../src/cli/reference-app/trusted-app-client.ts";
import { DEVICE_JWS_TYPES } from "../../src/trusted-app/device-jws.ts";
import { loginUri } from "../../src/trusted-app/acmeauth-uri.ts";
import { trustedApp } from "../../src/trusted-app/trusted-app.ts";
import { send, type TestProvider } from "../support/test-provider.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl, responseParams } from "../support/browser-login.ts";
import { hiddenField } from "../support/raw-browser.ts";
import { enrolledPhone, providerWithPhone } from "./trusted-app-support.ts";

/**
 * Device-signed JWS (the scan, the approval, the silent login): only an active device of an active
 * user, with the right key, type, audience and a fresh iat, once.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

/** A fresh login challenge (its id, which the page knows) and its scan token (what the QR code holds). */
async function newChallenge(): Promise<{ challengeId: string; token: string }> {
  const app = trustedApp(pluginServices(p.provider));
  const { challengeId } = await app.challenges.create(60_000);
  const view = await app.challenges.view(challengeId);
  if (view.state !== "pending") throw new Error("not pending");
  return { challengeId, token: new URL(view.uri).searchParams.get("challenge")! };
}

const scanToken = async () => (await newChallenge()).token;

const scan = (jws: unknown) =>
  send(`${p.url}/app/scan`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jws }) });

async function expectRefused(jws: unknown, description: RegExp): Promise<void> {
  const answer = await scan(jws);
  expect(answer.status, answer.text).toBe(401);
  expect(answer.json?.error).toBe("invalid_token");
  expect(answer.json?.error_description).toMatch(description);
}

describe("a device JWS", () => {
  it("from an enrolled device is accepted for a scan", async () => {
    const answer = await scan(await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual({ status: "scanned" });
  });

  it("is refused when replayed, even for another challenge's scan", async () => {
    const jws = await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() });
    expect((await scan(jws)).status).toBe(200);
    await expectRefused(jws, /already used/);
    // The same jti in a new JWS (another challenge) is a replay too.
    const jti = "j".repeat(22);
    expect((await scan(await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }, { jti }))).status).toBe(200);
    await expectRefused(await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }, { jti }), /already used/);
  });

  it("is accepted once among many concurrent copies", async () => {
    const jws = await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() });
    const answers = await Promise.all(Array.from({ length: 20 }, () => scan(jws)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(19);
  });

  it("is refused from an unknown device (a kid that was never enrolled)", async () => {
    const stranger = new TrustedAppClient({ ...phone.state, deviceId: "never-enrolled-device-id" });
    await expectRefused(await stranger.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }), /not enrolled/);
  });

  it("is refused when signed by another key under the device's kid", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const forger = new TrustedAppClient({ ...phone.state, privateJwk: await exportJWK(privateKey) });
    await expectRefused(await forger.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }), /signature/);
  });

  it("is refused for another user than the device's", async () => {
    const otherUser = new TrustedAppClient({ ...phone.state, sub: "E10002" });
    await expectRefused(await otherUser.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }), /not enrolled/);
  });

  it("is refused from a device that revoked itself", async () => {
    const revoked = await enrolledPhone(p, "E10001", "soon revoked");
    await revoked.unenroll();
    await expectRefused(await revoked.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }), /not enrolled/);
    // Only that device: the user's other phone still works.
    expect((await scan(await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }))).status).toBe(200);
  });

  it("is refused from every device of a user whose qrcode enrollment was removed on the account page", async () => {
    const bobs = await enrolledPhone(p, "E10002", "Bob's phone");
    expect((await scan(await bobs.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }))).status).toBe(200);
    // Bob signs in with his password and removes the method on /account.
    const browser = new RawBrowser();
    const login = await browser.follow(await browser.get(authorizeUrl(p.issuer, { login_hint: "bob" })));
    const passwordPage = await browser.post(login.url, {
      csrf: hiddenField(login.text, "csrf")!,
      event: "CHOOSE_METHOD",
      method: "password",
    });
    expect(
      responseParams(
        await browser.post(passwordPage.url, {
          csrf: hiddenField(passwordPage.text, "csrf")!,
          event: "SUBMIT_PASSWORD",
          username: "bob",
          password: "bob-password",
        }),
      ).get("code"),
    ).toBeTruthy();
    const account = await browser.get(`${p.url}/account`);
    const removed = await browser.post(`${p.url}/account/remove`, { csrf: hiddenField(account.text, "csrf")!, method: "qrcode" });
    expect(removed.location).toBe(`${p.url}/account?removed=qrcode`);
    await expectRefused(await bobs.sign(DEVICE_JWS_TYPES.scan, { challenge: await scanToken() }), /not enrolled/);
  });

  it.each([
    [
      "made for another purpose (an approval)",
      () => phone.sign(DEVICE_JWS_TYPES.approve, { challenge: "x".repeat(22) }),
      /^a device JWS claim is not acceptable$/,
    ],
    [
      "for another audience",
      () => phone.sign(DEVICE_JWS_TYPES.scan, {}, { aud: "https://elsewhere.example" }),
      /^a device JWS claim is not acceptable$/,
    ],
    [
      "signed two minutes ago",
      () => phone.sign(DEVICE_JWS_TYPES.scan, {}, { iat: Math.floor(Date.now() / 1000) - 120 }),
      /^the device JWS was not signed just now \(iat\)$/,
    ],
    [
      "signed two minutes ahead",
      () => phone.sign(DEVICE_JWS_TYPES.scan, {}, { iat: Math.floor(Date.now() / 1000) + 120 }),
      /^the device JWS was not signed just now \(iat\)$/,
    ],
    ["without a jti", () => phone.sign(DEVICE_JWS_TYPES.scan, {}, { jti: undefined }), /^a device JWS claim is not acceptable$/],
    ["with a short jti", () => phone.sign(DEVICE_JWS_TYPES.scan, {}, { jti: "1" }), /^the device JWS needs a random jti$/],
    ["expired", () => phone.sign(DEVICE_JWS_TYPES.scan, {}, { exp: Math.floor(Date.now() / 1000) - 90 }), /^the device JWS has expired$/],
  ])("is refused when %s", async (_, make, description) => {
    await expectRefused(await make(), description);
  });

  it("is refused with alg none, HS256 or another curve", async () => {
    const header = (alg: string) =>
      Buffer.from(JSON.stringify({ alg, typ: DEVICE_JWS_TYPES.scan, kid: phone.state.deviceId })).toString("base64url");
    const claims = Buffer.from(
      JSON.stringify({ sub: phone.state.sub, aud: p.issuer, iat: Math.floor(Date.now() / 1000), jti: "n".repeat(22) }),
    ).toString("base64url");
    await expectRefused(`${header("none")}.${claims}.`, /ES256/);
    const hs = await new SignJWT({ sub: phone.state.sub, aud: p.issuer, jti: "h".repeat(22) })
      .setProtectedHeader({ alg: "HS256", typ: DEVICE_JWS_TYPES.scan, kid: phone.state.deviceId })
      .setIssuedAt()
      .sign(new TextEncoder().encode("a-secret-of-at-least-32-bytes-length!!"));
    await expectRefused(hs, /ES256/);
  });

  it.each([
    ["missing", undefined],
    ["a number", 42],
    ["garbage", "not.a.jws"],
    ["huge", "a".repeat(10_000)],
  ])("is refused when %s, with 401 not 500", async (_, jws) => {
    const answer = await scan(jws);
    expect(answer.status).toBe(401);
    expect(answer.json?.error).toBe("invalid_token");
  });
});

describe("the app's mistakes with a valid signature", () => {
  it("a scan of an unknown or expired QR code is 400 invalid_grant", async () => {
    const answer = await scan(await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: "u".repeat(22) }));
    expect(answer.status).toBe(400);
    expect(answer.json?.error).toBe("invalid_grant");
  });

  it("a second scan of a QR code is 400 invalid_grant, from the same device or another", async () => {
    const token = await scanToken();
    expect((await scan(await phone.sign(DEVICE_JWS_TYPES.scan, { challenge: token }))).status).toBe(200);
    const other = await enrolledPhone(p, "E10001", "second phone");
    const answer = await scan(await other.sign(DEVICE_JWS_TYPES.scan, { challenge: token }));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "invalid_grant", error_description: "the QR code was already scanned" });
  });

  it("the client refuses a QR code from another provider than its own", async () => {
    await expect(phone.scan(loginUri("https://phishing.example", "c".repeat(22)))).rejects.toThrow(/not from/);
    await expect(phone.scan("https://example.com/not-ours")).rejects.toThrow(/not an acmeauth/);
  });

  it("an approval by a device that did not scan is 400, and leaves the challenge to the scanner", async () => {
    const { challengeId, token } = await newChallenge();
    await phone.scan(loginUri(p.issuer, token));
    const scanned = await trustedApp(pluginServices(p.provider)).challenges.view(challengeId);
    if (scanned.state !== "scanned") throw new Error("not scanned");
    expect(scanned.deviceName).toBe("Alice's phone");
    const other = await enrolledPhone(p, "E10001", "third phone");
    const refused = await other
      .postJws("/approve", await other.sign(DEVICE_JWS_TYPES.approve, { challenge: token, number: scanned.number }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TrustedAppError);
    expect(refused).toMatchObject({ status: 400, error: "invalid_grant", description: "this device has not scanned the QR code" });
    await phone.approve(scanned.number);
    expect((await trustedApp(pluginServices(p.provider)).challenges.view(challengeId)).state).toBe("approved");
  });

  it("a body with a member twice is 400 invalid_request and approves nothing; the plain body then does", async () => {
    const { challengeId, token } = await newChallenge();
    await phone.scan(loginUri(p.issuer, token));
    const scanned = await trustedApp(pluginServices(p.provider)).challenges.view(challengeId);
    if (scanned.state !== "scanned") throw new Error("not scanned");
    const approval = await phone.sign(DEVICE_JWS_TYPES.approve, { challenge: token, number: scanned.number });
    // JSON.parse would keep the second member: the approval behind a first one that reads as nothing.
    const twice = await send(`${p.url}/app/approve`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"jws":"none","jws":"${approval}"}`,
    });
    expect(twice.status, twice.text).toBe(400);
    expect(twice.json).toEqual({ error: "invalid_request", error_description: "the body has the member 'jws' twice in one object" });
    expect((await trustedApp(pluginServices(p.provider)).challenges.view(challengeId)).state).toBe("scanned");
    await phone.postJws("/approve", approval);
    expect((await trustedApp(pluginServices(p.provider)).challenges.view(challengeId)).state).toBe("approved");
  });
});
