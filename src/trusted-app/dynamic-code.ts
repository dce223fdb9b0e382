import { generate, verify } from "otplib";
import type { Provider } from "../provider.ts";
import type { RecordStore } from "../stores/store.ts";
import type { DeviceRegistry } from "./device-registry.ts";

/** RFC 6238 defaults, which every authenticator understands: 6 digits, 30-second steps, HMAC-SHA1. */
export const DYNAMIC_CODE_PERIOD_SECONDS = 30;
const CODE = /^[0-9]{6}$/;

/** The dynamic code of a seed at a time (the app's side; tests and the reference client use it). */
export function dynamicCode(seed: string, nowMs: number): Promise<string> {
  return generate({ secret: seed, epoch: Math.floor(nowMs / 1000), period: DYNAMIC_CODE_PERIOD_SECONDS });
}

/**
 * Checks a dynamic code (method appotp) against the user's active devices: the code of the current
 * time step or one step either side (phone clocks drift; otplib's tolerance of one period covers
 * exactly the neighbouring steps), and each step of each device is accepted once — the step is
 * claimed atomically in the shared store, since otplib itself is stateless. Once a step is accepted,
 * the device's earlier steps in the window are marked used too, so no older code (seen over a
 * shoulder) passes after a newer one. False for a wrong, replayed or malformed code and for a user
 * without devices (a decoy sub).
 */
export async function checkDynamicCode(provider: Provider, devices: DeviceRegistry, usedSteps: RecordStore<number>, sub: string, typed: string): Promise<boolean> {
  // Apps show "123 456": spaces are dropped.
  const code = typed.replace(/\s+/g, "");
  if (!CODE.test(code)) return false;
  const now = provider.clock();
  const epoch = Math.floor(now / 1000);
  for (const device of await devices.active(sub)) {
    const seed = devices.seedOf(sub, device);
    if (seed === undefined) continue;
    const result = await verify({ secret: seed, token: code, epoch, period: DYNAMIC_CODE_PERIOD_SECONDS, epochTolerance: DYNAMIC_CODE_PERIOD_SECONDS });
    // The functional verify's type also covers HOTP results, which have no time step.
    if (!result.valid || !("timeStep" in result)) continue;
    const step = result.timeStep as number;
    const keep = (3 * DYNAMIC_CODE_PERIOD_SECONDS + 1) * 1000;
    const claim = (s: number) => usedSteps.add(`otp-step:${device.id}:${s}`, 1, keep);
    if (!(await claim(step))) return false;
    for (let earlier = Math.floor(epoch / DYNAMIC_CODE_PERIOD_SECONDS) - 1; earlier < step; earlier++) await claim(earlier);
    return true;
  }
  return false;
}
