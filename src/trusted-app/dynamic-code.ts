import { generate } from "otplib";
import type { TrustedAppServices } from "./trusted-app-services.ts";
import type { RecordStore } from "../stores/store.ts";
import type { DeviceRegistry } from "./device-registry.ts";
import { matchTimeStep } from "../security/time-based-codes.ts";
import { TimeStepClaims } from "../security/time-step-claims.ts";

/** RFC 6238 defaults, which every authenticator understands: 6 digits, 30-second steps, HMAC-SHA1. */
export const DYNAMIC_CODE_PERIOD_SECONDS = 30;

/** The dynamic code of a seed at a time (the app's side; tests and the reference client use it). */
export function dynamicCode(seed: string, nowMs: number): Promise<string> {
  return generate({ secret: seed, epoch: Math.floor(nowMs / 1000), period: DYNAMIC_CODE_PERIOD_SECONDS });
}

/**
 * Checks a dynamic code (method appotp) against the user's active devices: the code of the current
 * time step or one step either side (phone clocks drift), and each step of each device is accepted
 * once, claimed atomically in the shared store (otplib itself is stateless); once a step is accepted
 * no older code of the device passes either. False for a wrong, replayed or malformed code and for a
 * user without devices (a decoy sub).
 */
export async function checkDynamicCode(
  provider: TrustedAppServices,
  devices: DeviceRegistry,
  usedSteps: RecordStore<true>,
  sub: string,
  typed: string,
): Promise<boolean> {
  const now = provider.clock();
  const claims = new TimeStepClaims(usedSteps, "otp");
  for (const device of await devices.active(sub)) {
    const seed = devices.seedOf(sub, device);
    if (seed === undefined) continue;
    const key = { secret: seed, digits: 6 as const, period: DYNAMIC_CODE_PERIOD_SECONDS };
    const step = await matchTimeStep(key, typed, now);
    if (step !== undefined) return claims.claim(device.id, step, DYNAMIC_CODE_PERIOD_SECONDS, now);
  }
  return false;
}
