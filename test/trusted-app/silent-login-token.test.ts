import { pluginServices } from "../../src/infra/live-services.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { DEVICE_JWS_TYPES, DeviceJwsError } from "../../src/trusted-app/device-jws.ts";
import { verifySilentLoginToken } from "../../src/trusted-app/silent-login-token.ts";
import { silentLogin } from "../../src/http/authorize/silent-login.ts";
import type { TestProvider } from "../support/test-provider.ts";
import { enrolledPhone, providerWithPhone } from "./trusted-app-support.ts";

/**
 * The embedded-web-view token: a short-lived JWS the trusted app's device signs for one client; a
 * valid one names the user without a scan. Everything else is refused with DeviceJwsError.
 */
let p: TestProvider;
let phone: TrustedAppClient;
beforeAll(async () => ({ p, phone } = await providerWithPhone()));
afterAll(() => p.close());

const verify = (token: unknown, clientId = "demo-web") =>
  verifySilentLoginToken(pluginServices(p.provider), token, clientId).then((login) => login.sub);
const refusal = (token: unknown, clientId = "demo-web") =>
  verify(token, clientId).then(
    () => "accepted",
    (e: unknown) => (e instanceof DeviceJwsError ? e.reason : `not a refusal: ${String(e)}`),
  );
const now = () => Math.floor(Date.now() / 1000);

describe("the silent-login token", () => {
  it("names the device's user", async () => {
    expect(await verify(await phone.silentLoginToken("demo-web"))).toBe("E10001");
  });

  it("is accepted once", async () => {
    const token = await phone.silentLoginToken("demo-web");
    expect(await verify(token)).toBe("E10001");
    expect(await refusal(token)).toBe("the device JWS was already used");
  });

  it("is refused for another client than the one it was made for", async () => {
    expect(await refusal(await phone.silentLoginToken("demo-web"), "demo-spa")).toBe("the silent-login token was made for another client");
  });

  it("is refused when it lives longer than two minutes, or has no exp", async () => {
    expect(await refusal(await phone.silentLoginToken("demo-web", 600))).toBe("the silent-login token must expire within 120 s of iat");
    expect(await refusal(await phone.sign(DEVICE_JWS_TYPES.silentLogin, { client_id: "demo-web" }))).toBe(
      "the silent-login token must expire within 120 s of iat",
    );
  });

  it("is refused when expired", async () => {
    expect(
      await refusal(await phone.sign(DEVICE_JWS_TYPES.silentLogin, { client_id: "demo-web" }, { iat: now() - 50, exp: now() - 40 })),
    ).toBe("the device JWS has expired");
  });

  it("is refused when it is a JWS made for something else (a scan)", async () => {
    expect(await refusal(await phone.sign(DEVICE_JWS_TYPES.scan, { client_id: "demo-web" }, { exp: now() + 60 }))).toBe(
      "a device JWS claim is not acceptable",
    );
  });

  it("is refused from a revoked device", async () => {
    const revoked = await enrolledPhone(p, "E10001", "old phone");
    const token = await revoked.silentLoginToken("demo-web");
    await revoked.unenroll();
    expect(await refusal(token)).toBe("the device is not enrolled");
  });

  it("is refused when it is no JWS at all", async () => {
    expect(await refusal(undefined)).toBe("a device JWS is required");
    expect(await refusal("a.b.c")).toBe("the device JWS is malformed");
  });
});

describe("the silent-login token with acr_values app_gps / app_faceid", () => {
  const BOTH = { gps: true, faceid: true };

  it("carries the location and the face check the request wants, as the login's evidence", async () => {
    const token = await phone.silentLoginToken("demo-web", 60, { gps: { lat: 25.03, lnt: 121.56 }, faceid: "pass" });
    const login = await verifySilentLoginToken(pluginServices(p.provider), token, "demo-web", BOTH);
    expect(login).toMatchObject({ sub: "E10001", evidence: { gps: { lat: 25.03, lnt: 121.56 }, faceid: { result: "pass" } } });
    expect(Math.abs(login.evidence.gps!.time - now())).toBeLessThanOrEqual(2);
    expect(login.evidence.faceid!.key).toMatch(/^face-[A-Za-z0-9_-]{12}$/);
  });

  it("is refused without the wanted evidence, or with a face check that failed", async () => {
    const refused = async (token: string) =>
      verifySilentLoginToken(pluginServices(p.provider), token, "demo-web", BOTH).then(
        () => "accepted",
        (e: unknown) => (e as DeviceJwsError).reason,
      );
    expect(await refused(await phone.silentLoginToken("demo-web", 60, { faceid: "pass" }))).toBe("the location (gps) is required");
    expect(await refused(await phone.silentLoginToken("demo-web", 60, { gps: { lat: 1, lnt: 2 }, faceid: "fail" }))).toBe(
      "face recognition did not pass",
    );
    expect(await refused(await phone.silentLoginToken("demo-web", 60, { gps: { lat: 91, lnt: 2 }, faceid: "pass" }))).toBe(
      "gps.lat must be a number from -90 to 90",
    );
  });

  it("keeps no evidence the request did not want", async () => {
    const token = await phone.silentLoginToken("demo-web", 60, { gps: { lat: 25.03, lnt: 121.56 } });
    expect(await verifySilentLoginToken(pluginServices(p.provider), token, "demo-web")).toEqual({ sub: "E10001", evidence: {} });
  });
});

describe("silentLogin with the plan's wanted evidence", () => {
  const request = {
    clientId: "demo-web",
    redirectUri: "http://localhost:3001/callback",
    responseMode: "query" as const,
    scopes: ["openid"],
    prompt: [],
    framed: false,
  };

  it("puts the checked gps and faceid into the authentication's evidence under app", async () => {
    const token = await phone.silentLoginToken("demo-web", 60, { gps: { lat: -33.87, lnt: 151.21 }, faceid: "pass" });
    const login = await silentLogin(p.provider, token, request, { gps: true, faceid: true });
    expect(login).toMatchObject({
      sub: "E10001",
      amr: ["qrcode"],
      evidence: { app: { gps: { lat: -33.87, lnt: 151.21 }, faceid: { result: "pass" } } },
    });
  });

  it("logs in nobody silently when the wanted evidence is missing (the login page follows), and logs why", async () => {
    const token = await phone.silentLoginToken("demo-web", 60, { gps: { lat: -33.87, lnt: 151.21 } });
    expect(await silentLogin(p.provider, token, request, { gps: true, faceid: true })).toBeUndefined();
    expect(p.logs.at(-1)).toMatchObject({ event: "silent_login_refused", reason: "the face recognition result (faceid) is required" });
  });

  it("adds no evidence when none is wanted", async () => {
    const login = await silentLogin(p.provider, await phone.silentLoginToken("demo-web", 60, { faceid: "pass" }), request);
    expect(login).toBeDefined();
    expect(login!.evidence).toBeUndefined();
  });
});
