import { verify } from "otplib";

/**
 * RFC 6238 time-based codes, shared by the TOTP method (an authenticator app's secret) and the trusted
 * app's dynamic code (a device seed): matching a code to its time step, and (TimeStepClaims) using each
 * step once.
 */

/** A secret with the parameters it is used with, in plain text: only ever in memory. */
export interface TotpKey {
  secret: string;
  digits: 6 | 8;
  period: number;
}

/** A code as typed: apps show "123 456", so spaces are dropped; anything but `digits` digits is no code. */
export function normaliseCode(code: string, digits: number): string | undefined {
  const compact = code.replace(/\s+/g, "");
  return compact.length === digits && /^[0-9]+$/.test(compact) ? compact : undefined;
}

/**
 * The time step `code` belongs to, if it is the key's code for the current step or one step either
 * side (RFC 6238 §5.2: allow one step of clock drift), else undefined. otplib takes epochs in
 * seconds; a tolerance of one period covers exactly the neighbouring steps. otplib is stateless:
 * whether the step was used already is for the caller to decide (TimeStepClaims).
 */
export async function matchTimeStep(key: TotpKey, code: string, nowMs: number): Promise<number | undefined> {
  const token = normaliseCode(code, key.digits);
  if (token === undefined) return undefined;
  const result = await verify({
    secret: key.secret,
    token,
    digits: key.digits,
    period: key.period,
    epoch: Math.floor(nowMs / 1000),
    epochTolerance: key.period,
  });
  // The functional verify's type also covers HOTP results, which have no time step.
  return result.valid && "timeStep" in result ? result.timeStep : undefined;
}
