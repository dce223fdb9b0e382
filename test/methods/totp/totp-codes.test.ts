import { generate, generateSecret } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PluginContext } from "../../../src/plugin-contract/factor-plugin.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { checkTotpCode } from "../../../flows/methods/totp/check-totp-code.ts";
import { sealKey, type TotpKey } from "../../../flows/methods/totp/totp-enrollment-record.ts";
import type { TotpSettings } from "../../../flows/methods/totp/totp-settings.ts";

/**
 * The TOTP login check against a frozen provider clock: which codes pass (±1 time step), that each
 * passes once, and that attempts are counted. Each test enrolls its own user (sub), so the step
 * claims and attempt counters of one test never touch another's.
 */
const PERIOD = 30;
// The middle of a time step, far from any boundary.
const NOW = 1_800_000_000_000 - (1_800_000_000_000 % (PERIOD * 1000)) + 15_000;

let p: TestProvider;
let context: PluginContext<TotpSettings>;
beforeAll(async () => {
  p = await startTestProvider();
  const loaded = p.provider.methods.get("totp")!.context as unknown as PluginContext<TotpSettings>;
  // The plugin reads time from services.clock(): here it stands still.
  context = { ...loaded, services: { ...loaded.services, clock: () => NOW } };
});
afterAll(() => p.close());

let users = 0;
/** A new user enrolled with a new secret. */
async function enrolledUser(): Promise<{ sub: string; key: TotpKey }> {
  const sub = `T${++users}`;
  const key: TotpKey = { secret: generateSecret(), digits: 6, period: PERIOD };
  await context.enrollments.put(sub, sealKey(context.services, context.methodId, sub, key));
  return { sub, key };
}

/** The key's code `steps` time steps from NOW, as an app with that clock offset shows it. */
const codeAt = (key: TotpKey, steps: number) =>
  generate({ secret: key.secret, digits: key.digits, period: key.period, epoch: NOW / 1000 + steps * PERIOD });

describe("TOTP codes", () => {
  it("accepts the current code", async () => {
    const { sub, key } = await enrolledUser();
    expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(true);
  });

  it.each([-1, 1])("accepts the code of %i step (clock drift)", async (steps) => {
    const { sub, key } = await enrolledUser();
    expect(await checkTotpCode(context, sub, await codeAt(key, steps))).toBe(true);
  });

  it.each([-2, 2, -3, 3])("refuses the code of %i steps", async (steps) => {
    const { sub, key } = await enrolledUser();
    expect(await checkTotpCode(context, sub, await codeAt(key, steps))).toBe(false);
    // The current code still works: nothing was claimed by the refused one.
    expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(true);
  });

  it("refuses a code replayed in the same time step", async () => {
    const { sub, key } = await enrolledUser();
    const code = await codeAt(key, 0);
    expect(await checkTotpCode(context, sub, code)).toBe(true);
    expect(await checkTotpCode(context, sub, code)).toBe(false);
  });

  it("refuses the code of a step already used, and older codes once a newer one was used", async () => {
    const { sub, key } = await enrolledUser();
    expect(await checkTotpCode(context, sub, await codeAt(key, 1))).toBe(true);
    expect(await checkTotpCode(context, sub, await codeAt(key, 1))).toBe(false);
    expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(false);
    expect(await checkTotpCode(context, sub, await codeAt(key, -1))).toBe(false);
  });

  it("accepts a newer code after an older one", async () => {
    const { sub, key } = await enrolledUser();
    expect(await checkTotpCode(context, sub, await codeAt(key, -1))).toBe(true);
    expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(true);
    expect(await checkTotpCode(context, sub, await codeAt(key, 1))).toBe(true);
  });

  it("accepts one of many concurrent submissions of the same code", async () => {
    const { sub, key } = await enrolledUser();
    const code = await codeAt(key, 0);
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => checkTotpCode(context, sub, code)));
    expect(verdicts.filter(Boolean)).toHaveLength(1);
  });

  it("takes a code typed with spaces, and refuses anything that is not six digits", async () => {
    // Four malformed codes and the right one: within the attempt limit of five.
    const { sub, key } = await enrolledUser();
    const code = await codeAt(key, 0);
    for (const malformed of [`${code}0`, code.slice(1), "12345a", "１２３４５６"])
      expect(await checkTotpCode(context, sub, malformed), malformed).toBe(false);
    expect(await checkTotpCode(context, sub, `${code.slice(0, 3)} ${code.slice(3)}`)).toBe(true);
  });

  it("refuses every code for a user without a TOTP enrollment (a decoy sub included)", async () => {
    const { key } = await enrolledUser();
    for (const sub of ["~unknown:abcdef", "E10002"]) expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(false);
  });

  it("refuses another user's code", async () => {
    const alice = await enrolledUser();
    const bob = await enrolledUser();
    expect(await checkTotpCode(context, bob.sub, await codeAt(alice.key, 0))).toBe(false);
  });

  it("counts every attempt before checking, and refuses even the right code once the account is locked", async () => {
    const { sub, key } = await enrolledUser();
    const limit = p.provider.settings.security.password_attempts.max_failures;
    for (let i = 0; i < limit; i++) expect(await checkTotpCode(context, sub, "000000")).toBe(false);
    expect(await context.attempts.count(sub)).toBe(limit);
    expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(false);
    expect(await context.attempts.count(sub)).toBe(limit + 1);
  });

  it("forgets the failures after a success", async () => {
    const { sub, key } = await enrolledUser();
    expect(await checkTotpCode(context, sub, "000000")).toBe(false);
    expect(await checkTotpCode(context, sub, await codeAt(key, 0))).toBe(true);
    expect(await context.attempts.count(sub)).toBe(0);
  });
});
