import { pluginServices } from "../../../src/infra/live-services.ts";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dynamicCode, DYNAMIC_CODE_PERIOD_SECONDS } from "../../../src/trusted-app/dynamic-code.ts";
import { trustedApp, type TrustedApp } from "../../../src/trusted-app/trusted-app.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/**
 * The dynamic code of the trusted app (method appotp) against a frozen provider clock: ±1 time step,
 * each step of each device accepted once. Each test enrolls a device for its own user, so step claims
 * never cross tests.
 */
const PERIOD_MS = DYNAMIC_CODE_PERIOD_SECONDS * 1000;
// The middle of a time step, far from any boundary.
const NOW = 1_800_000_000_000 - (1_800_000_000_000 % PERIOD_MS) + 15_000;

let p: TestProvider;
let app: TrustedApp;
beforeAll(async () => {
  p = await startTestProvider();
  // The trusted app reads time from provider.clock(): here it stands still.
  app = trustedApp({ ...pluginServices(p.provider), clock: () => NOW });
});
afterAll(() => p.close());

let users = 0;
/** A new user with one enrolled device; its seed. */
async function enrolled(): Promise<{ sub: string; seed: string; deviceId: string }> {
  const sub = `A${++users}`;
  const jwk = await exportJWK((await generateKeyPair("ES256")).publicKey);
  const { device, seed } = await app.devices.add(sub, "phone", jwk);
  return { sub, seed, deviceId: device.id };
}

const codeAt = (seed: string, steps: number) => dynamicCode(seed, NOW + steps * PERIOD_MS);

describe("appotp dynamic codes", () => {
  it("accepts the device's current code", async () => {
    const { sub, seed } = await enrolled();
    expect(await app.checkCode(sub, await codeAt(seed, 0))).toBe(true);
  });

  it.each([-1, 1])("accepts the code of %i step (clock drift)", async (steps) => {
    const { sub, seed } = await enrolled();
    expect(await app.checkCode(sub, await codeAt(seed, steps))).toBe(true);
  });

  it.each([-2, 2, -3, 3, -10])("refuses the code of %i steps, and claims nothing", async (steps) => {
    const { sub, seed } = await enrolled();
    expect(await app.checkCode(sub, await codeAt(seed, steps))).toBe(false);
    expect(await app.checkCode(sub, await codeAt(seed, 0))).toBe(true);
  });

  it("refuses a code replayed in the same time step", async () => {
    const { sub, seed } = await enrolled();
    const code = await codeAt(seed, 0);
    expect(await app.checkCode(sub, code)).toBe(true);
    expect(await app.checkCode(sub, code)).toBe(false);
  });

  it("accepts one of many concurrent submissions of the same code", async () => {
    const { sub, seed } = await enrolled();
    const code = await codeAt(seed, 0);
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => app.checkCode(sub, code)));
    expect(verdicts.filter(Boolean)).toHaveLength(1);
  });

  it("refuses an older code once a newer one was accepted", async () => {
    const { sub, seed } = await enrolled();
    expect(await app.checkCode(sub, await codeAt(seed, 0))).toBe(true);
    expect(await app.checkCode(sub, await codeAt(seed, -1))).toBe(false);
    // The next step is still to come.
    expect(await app.checkCode(sub, await codeAt(seed, 1))).toBe(true);
  });

  it("accepts the codes of each of the user's devices, and none of a revoked device", async () => {
    const { sub, seed, deviceId } = await enrolled();
    const jwk = await exportJWK((await generateKeyPair("ES256")).publicKey);
    const second = await app.devices.add(sub, "second phone", jwk);
    expect(await app.checkCode(sub, await codeAt(second.seed, 0))).toBe(true);
    expect(await app.devices.revoke(sub, deviceId)).toBe(true);
    expect(await app.checkCode(sub, await codeAt(seed, 0))).toBe(false);
    // The revoked device's seed is gone from the record.
    const record = await p.provider.enrollments.get<{ devices: Array<{ id: string; seedSealed?: string; revokedAt?: number }> }>(
      "qrcode",
      sub,
    );
    expect(record!.data.devices.find((d) => d.id === deviceId)).toMatchObject({ revokedAt: expect.any(Number) });
    expect(record!.data.devices.find((d) => d.id === deviceId)!.seedSealed).toBeUndefined();
  });

  it("removes the user's enrollment with their last active device, so the account page offers the set-up again", async () => {
    const { sub, seed, deviceId } = await enrolled();
    expect(await app.devices.revoke(sub, deviceId)).toBe(true);
    expect(await p.provider.enrollments.get("qrcode", sub)).toBeUndefined();
    expect(await app.checkCode(sub, await codeAt(seed, 0))).toBe(false);
    expect(await app.devices.revoke(sub, deviceId)).toBe(false);
  });

  it("accepts a code typed with a space, and refuses anything that is not six digits", async () => {
    const { sub, seed } = await enrolled();
    const code = await codeAt(seed, 0);
    for (const typed of ["", "12345", "1234567", "abcdef", `${code}0`, code.replace(/^./, "x")])
      expect(await app.checkCode(sub, typed)).toBe(false);
    expect(await app.checkCode(sub, `${code.slice(0, 3)} ${code.slice(3)}`)).toBe(true);
  });

  it("never accepts anything for a user without a device (a decoy sub included)", async () => {
    const { seed } = await enrolled();
    expect(await app.checkCode("~unknown:abc", await codeAt(seed, 0))).toBe(false);
    expect(await app.checkCode("E10002", await codeAt(seed, 0))).toBe(false);
  });
});
