import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrustedAppClient, TrustedAppError } from "../../src/cli/reference-app/trusted-app-client.ts";
import { parseAcmeAuthUri } from "../../src/trusted-app/acmeauth-uri.ts";
import { startTestProvider, send, type TestProvider } from "../support/test-provider.ts";
import { operatorEnrollUri } from "./trusted-app-support.ts";

/**
 * Enrolling a trusted-app device through the device API (POST /app/enroll): a one-time token from an
 * acmeauth://enroll QR code, the app's new P-256 public key, and the seed of its dynamic code back.
 */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

const enroll = (body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) =>
  send(`${p.url}/app/enroll`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });

async function publicJwk() {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

const tokenOf = (uri: string) => (parseAcmeAuthUri(uri) as { token: string }).token;

describe("device enrollment", () => {
  it("records the device in the user's qrcode enrollment and returns its id, sub and dynamic-code seed", async () => {
    const uri = await operatorEnrollUri(p, "E10001");
    expect(uri).toMatch(/^acmeauth:\/\/enroll\?issuer=http%3A%2F%2F127\.0\.0\.1%3A\d+&token=[A-Za-z0-9_-]{32}$/);
    const phone = await TrustedAppClient.enroll(uri, "Pixel of Alice");
    expect(phone.state).toMatchObject({ issuer: p.issuer, sub: "E10001", name: "Pixel of Alice" });
    expect(phone.state.seed).toMatch(/^[A-Z2-7]{32}$/);
    const record = await p.provider.enrollments.get<{ devices: Array<Record<string, unknown>> }>("qrcode", "E10001");
    const device = record!.data.devices.find((d) => d.id === phone.state.deviceId)!;
    expect(device).toMatchObject({ name: "Pixel of Alice", publicJwk: { kty: "EC", crv: "P-256" } });
    // The seed is sealed at rest; the record holds no private key.
    expect(JSON.stringify(record)).not.toContain(phone.state.seed);
    expect(device.publicJwk).not.toHaveProperty("d");
  });

  it("uses a token once: a second enrollment with it is refused with invalid_grant", async () => {
    const uri = await operatorEnrollUri(p, "E10001");
    await TrustedAppClient.enroll(uri, "first");
    const again = await TrustedAppClient.enroll(uri, "second").catch((e: unknown) => e);
    expect(again).toBeInstanceOf(TrustedAppError);
    expect(again).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("lets exactly one of many concurrent enrollments with the same token succeed", async () => {
    const token = tokenOf(await operatorEnrollUri(p, "E10002"));
    const keys = await Promise.all(Array.from({ length: 10 }, publicJwk));
    const answers = await Promise.all(keys.map((k, i) => enroll({ token, name: `phone ${i}`, public_jwk: k.publicJwk })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).every((a) => a.json?.error === "invalid_grant")).toBe(true);
  });

  it("refuses an expired token", async () => {
    const qrcode = p.provider.methods.get("qrcode")!;
    const uri = (await qrcode.plugin.enrollByOperator!(qrcode.context, "E10001", { ttl: "1s" })).split("\n")[0]!;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { publicJwk: jwk } = await publicJwk();
    const answer = await enroll({ token: tokenOf(uri), name: "late", public_jwk: jwk });
    expect(answer.status).toBe(400);
    expect(answer.json?.error).toBe("invalid_grant");
  });

  it("refuses an unknown token without telling it apart from a used one", async () => {
    const { publicJwk: jwk } = await publicJwk();
    const answer = await enroll({ token: "A".repeat(32), name: "guess", public_jwk: jwk });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: "invalid_grant",
      error_description: "the enrollment code is not valid: used, expired or unknown",
    });
  });

  it.each([
    ["a private key", async () => (await publicJwk()).privateJwk],
    ["an RSA key", async () => exportJWK((await generateKeyPair("RS256", { extractable: true })).publicKey)],
    ["a P-384 key", async () => exportJWK((await generateKeyPair("ES384", { extractable: true })).publicKey)],
    ["a point off the curve", async () => ({ ...(await publicJwk()).publicJwk, y: Buffer.alloc(32, 7).toString("base64url") })],
    ["no key", async () => undefined],
  ])("refuses %s as the device key, and keeps the token", async (_, makeKey) => {
    const token = tokenOf(await operatorEnrollUri(p, "E10001"));
    const answer = await enroll({ token, name: "phone", public_jwk: await makeKey() });
    expect(answer.status).toBe(400);
    expect(answer.json?.error).toBe("invalid_request");
    // A malformed request does not burn the token.
    const { publicJwk: jwk } = await publicJwk();
    expect((await enroll({ token, name: "phone", public_jwk: jwk })).status).toBe(200);
  });

  it.each([
    ["empty", ""],
    ["too long", "x".repeat(65)],
    ["control characters", "phone\u0000"],
    ["a bidi override", "phone\u202e"],
    ["not a string", 42],
  ])("refuses a device name that is %s", async (_, name) => {
    const token = tokenOf(await operatorEnrollUri(p, "E10001"));
    const { publicJwk: jwk } = await publicJwk();
    const answer = await enroll({ token, name, public_jwk: jwk });
    expect(answer.status).toBe(400);
    expect(answer.json?.error).toBe("invalid_request");
  });

  it("answers malformed, oversized and non-JSON bodies with 4xx JSON errors, never 500", async () => {
    const cases = [
      await enroll("{not json"),
      await enroll("[]"),
      await enroll('"text"'),
      await enroll({ token: "x".repeat(20_000) }),
      await enroll("token=abc", { "content-type": "application/x-www-form-urlencoded" }),
      await send(`${p.url}/app/enroll`, { method: "POST" }),
    ];
    for (const answer of cases) {
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
      expect(answer.status, answer.text).toBeLessThan(500);
      expect(answer.json?.error).toMatch(/^invalid_request$/);
    }
    expect(cases[3]!.status).toBe(413);
  });

  it("answers an unknown device API path with 404 JSON", async () => {
    const answer = await send(`${p.url}/app/nothing`, { method: "POST" });
    expect(answer.status).toBe(404);
    expect(answer.json?.error).toBe("not_found");
  });
});
