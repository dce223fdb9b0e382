import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../../src/cli/reference-app/trusted-app-client.ts";
import { DEVICE_JWS_TYPES } from "../../../src/trusted-app/device-jws.ts";
import { AppAuthenticator } from "../../../src/cli/reference-app/app-authenticator.ts";
import type { BfidoEnrollment } from "../../../flows/methods/bfido/bfido-credential.ts";
import { responseParams } from "../../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { challengeOf, enrolledPhone, openQrLogin, pollOnce, press } from "../../trusted-app/trusted-app-support.ts";

/**
 * must_bfido's method over real HTTP: the reference app registers a FIDO2 credential through its
 * device-signed requests, the login page shows an acmeauth://bfido QR code, the app answers with a
 * WebAuthn assertion (verified by @simplewebauthn/server), and the page's long-poll and CHECK finish
 * the login. The login flow here offers bfido first (the login plan will run it for must_bfido).
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => {
  p = await startTestProvider({ edits: { "login.yaml": { "default_flow.methods": ["bfido", "password"] } } });
  phone = await enrolledPhone(p, "E10001", "Alice's phone");
});
afterAll(() => p.close());

const record = async (sub: string) => (await p.provider.enrollments.get("bfido", sub))?.data as BfidoEnrollment | undefined;

describe("bfido: the trusted app's FIDO2 credential over a QR code", () => {
  it("registers the app's credential through device-signed requests, held by the device, transport hybrid", async () => {
    await phone.bfidoRegister();
    const stored = await record("E10001");
    expect(stored?.credentials).toHaveLength(1);
    expect(stored!.credentials[0]).toMatchObject({
      id: phone.state.fido![0]!.id,
      transports: ["hybrid"],
      deviceId: phone.state.deviceId,
      deviceName: "Alice's phone",
      counter: 0,
    });
  });

  it("logs alice in when her app answers the QR code; amr is bfido, and the counter moved", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    expect(uri).toMatch(
      new RegExp(`^acmeauth://bfido\\?issuer=${encodeURIComponent(p.issuer).replaceAll(".", "\\.")}&challenge=[A-Za-z0-9_-]{43}$`),
    );
    expect(page.text).toContain("/methods/bfido/bfido-page.js");
    await phone.bfidoScan(uri);
    expect(await pollOnce(browser, page, "pending")).toEqual({ state: "verified" });
    const done = await press(browser, page, "CHECK");
    const tokens = await redeemCode(p, responseParams(done).get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["bfido"] });
    expect((await record("E10001"))!.credentials[0]!.counter).toBe(1);
  });

  it("refuses an answer whose body has the jws twice (400 invalid_request), which verifies nothing; the plain body then does", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    const challenge = new URL(uri).searchParams.get("challenge")!;
    const credential = new AppAuthenticator(phone.state.fido!, new URL(p.issuer).origin).authenticate(
      phone.state.fido![0]!.rpId,
      challenge,
    );
    const jws = await phone.sign(DEVICE_JWS_TYPES.bfido, { challenge, credential });
    const body = `{"jws":"x.y.z","jws":"${jws}"}`;
    const twice = await fetch(`${p.url}/methods/bfido/assertions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual({
      error: "invalid_request",
      error_description: "the body has the member 'jws' twice in one object",
    });
    expect(await pollOnce(browser, page)).toMatchObject({ state: "pending" });
    await phone.postJws("/assertions", jws, "/methods/bfido");
    expect(await pollOnce(browser, page)).toEqual({ state: "verified" });
  });

  it("refuses an app without a registered credential, and the page says so with a new QR code", async () => {
    const bob = await enrolledPhone(p, "E10002", "Bob's phone");
    const { browser, page, uri } = await openQrLogin(p);
    // Bob's app forges a credential it never registered.
    const forged = {
      id: "A".repeat(43),
      rawId: "A".repeat(43),
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: "e30", authenticatorData: "AA", signature: "AA" },
    };
    const challenge = new URL(uri).searchParams.get("challenge")!;
    const refused = bob.postJws("/assertions", await bob.sign(DEVICE_JWS_TYPES.bfido, { challenge, credential: forged }), "/methods/bfido");
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: "access_denied",
      description: "the FIDO2 assertion was not accepted",
    });
    // The answered QR code is spent, even for the right app.
    await expect(phone.bfidoScan(uri)).rejects.toMatchObject({ status: 400, description: "the QR code was already answered" });
    expect(await pollOnce(browser, page, "pending")).toEqual({ state: "refused" });
    const again = await press(browser, page, "CHECK");
    expect(again.text).toContain("was not accepted. Register it in the app first");
    expect(challengeOf(again).challengeId).not.toBe(challengeOf(page).challengeId);
    await expect(phone.bfidoScan(uri)).rejects.toMatchObject({ status: 400, description: "the QR code has expired" });
  });

  it("refuses alice's credential answered through another of her devices (a copied key is not the app's)", async () => {
    const tablet = await enrolledPhone(p, "E10001", "Alice's tablet");
    tablet.state.fido = structuredClone(phone.state.fido);
    const { uri } = await openQrLogin(p);
    await expect(tablet.bfidoScan(uri)).rejects.toMatchObject({
      status: 400,
      error: "access_denied",
      description: "the FIDO2 assertion was not accepted",
    });
  });

  it("refuses the credential of a device that was revoked", async () => {
    const old = await enrolledPhone(p, "E10001", "Alice's old phone");
    await old.bfidoRegister();
    const { uri } = await openQrLogin(p);
    const jws = await old.sign(DEVICE_JWS_TYPES.bfido, { challenge: new URL(uri).searchParams.get("challenge")! });
    await old.unenroll();
    await expect(old.postJws("/assertions", jws, "/methods/bfido")).rejects.toMatchObject({
      status: 401,
      error: "invalid_token",
      description: "the device is not enrolled",
    });
  });

  it("answers only a device-signed registration", async () => {
    const res = await fetch(`${p.url}/methods/bfido/registrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jws: "x.y.z" }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "invalid_token", error_description: "the device JWS is malformed" });
    // A scan JWS is not a registration.
    await expect(phone.postJws("/registrations", await phone.sign(DEVICE_JWS_TYPES.scan, {}), "/methods/bfido")).rejects.toMatchObject({
      status: 401,
    });
  });
});
