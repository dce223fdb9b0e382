import { pluginServices } from "../../src/infra/live-services.ts";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVICE_JWS_TYPES } from "../../src/trusted-app/device-jws.ts";
import { parseAcmeAuthUri } from "../../src/trusted-app/acmeauth-uri.ts";
import { trustedApp } from "../../src/trusted-app/trusted-app.ts";
import { availableBackends } from "../support/backends.ts";
import { responseParams } from "../support/browser-login.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { enrolledPhone, numberOn, openQrLogin, operatorEnrollUri, press } from "./trusted-app-support.ts";

/**
 * The trusted app's single-use rules on every store backend: an enrollment token, a device JWS and a
 * dynamic code's time step are each taken by one of many concurrent requests; and a QR login runs to
 * the end (challenge, scan, approval, consumption all in the store).
 */
describe.each(availableBackends())("the trusted app on the $name store", ({ url: storeUrl }) => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider({ storeUrl });
  });
  afterAll(() => p.close());

  const post = (path: string, body: unknown) =>
    send(`${p.url}/app${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("lets one of 10 concurrent enrollments with a token through", async () => {
    const { token } = parseAcmeAuthUri(await operatorEnrollUri(p, "E10001")) as { token: string };
    const keys = await Promise.all(Array.from({ length: 10 }, async () => exportJWK((await generateKeyPair("ES256")).publicKey)));
    const answers = await Promise.all(keys.map((public_jwk, i) => post("/enroll", { token, name: `phone ${i}`, public_jwk })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(400)]);
  });

  it("accepts one of 10 concurrent copies of a device JWS", async () => {
    const phone = await enrolledPhone(p);
    const app = trustedApp(pluginServices(p.provider));
    const { challengeId } = await app.challenges.create(60_000);
    const view = await app.challenges.view(challengeId);
    const challenge = new URL((view as { uri: string }).uri).searchParams.get("challenge")!;
    const jws = await phone.sign(DEVICE_JWS_TYPES.scan, { challenge });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post("/scan", { jws })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(401)]);
  });

  it("accepts a dynamic code once among 10 concurrent checks", async () => {
    const phone = await enrolledPhone(p, "E10002", "Bob's phone");
    const code = await phone.code();
    const verdicts = await Promise.all(Array.from({ length: 10 }, () => trustedApp(pluginServices(p.provider)).checkCode("E10002", code)));
    expect(verdicts.filter(Boolean)).toHaveLength(1);
  });

  it("runs a QR login to the end", async () => {
    const phone = await enrolledPhone(p);
    const { browser, page, uri } = await openQrLogin(p);
    await phone.scan(uri);
    const approval = await press(browser, page, "CHECK");
    await phone.approve(numberOn(approval));
    expect(responseParams(await press(browser, approval, "CHECK")).get("code")).toBeTruthy();
  });
});
