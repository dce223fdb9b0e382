import { randomInt } from "node:crypto";

/** A one-time code as the user types it: exactly six digits (spaces and dashes typed along are dropped). */
export const CODE_DIGITS = 6;

/** A new code: six uniformly random digits (crypto.randomInt, not Math.random). */
export function generateCode(): string {
  return randomInt(0, 10 ** CODE_DIGITS)
    .toString()
    .padStart(CODE_DIGITS, "0");
}

/** The typed code without the spaces and dashes people add; undefined when it is not six digits. */
export function normaliseCode(typed: unknown): string | undefined {
  if (typeof typed !== "string" || typed.length > 32) return undefined;
  const digits = typed.replace(/[\s-]/g, "");
  return /^[0-9]{6}$/.test(digits) ? digits : undefined;
}
