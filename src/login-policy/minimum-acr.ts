import type { AcrRequirements } from "./acr-values.ts";
import type { LoginPolicy } from "./login-policy.ts";

/**
 * The acr claim's values, weakest first (DESIGN "acr claim": `2fa` when a method of each class was used,
 * else `1fa`). Every login reaches `1fa`; only a two-factor flow can reach `2fa`.
 */
export const ACR_LEVELS = ["1fa", "2fa"] as const;
export type AcrLevel = (typeof ACR_LEVELS)[number];

/** What a login must reach, and who asks: the client's `minimum_acr`, an essential acr of the `claims` parameter, or both. */
export interface MinimumAcr {
  value: AcrLevel;
  by: string[];
}

/** The rank of an acr value (case-insensitive, as acr_values are matched), or 0 for a value no login of this provider reports. */
export function acrRank(value: string | undefined): number {
  const lower = value?.toLowerCase();
  return ACR_LEVELS.findIndex((level) => level === lower) + 1;
}

/** Whether a login whose acr claim is `achieved` meets `minimum`: a stronger login meets a weaker minimum. */
export function meetsMinimum(achieved: string, minimum: MinimumAcr | undefined): boolean {
  return minimum === undefined || acrRank(achieved) >= acrRank(minimum.value);
}

/**
 * What a finished login must have reached: the planned minimum, and the client's own minimum_acr read
 * again, for logins that were never planned here (an extension's, such as the custom QR-code login) and for
 * a client whose minimum was raised since the request was planned.
 */
export function requiredAcr(planned: MinimumAcr | undefined, clientMinimum: AcrLevel | undefined): MinimumAcr | undefined {
  if (clientMinimum === undefined || (planned !== undefined && acrRank(planned.value) >= acrRank(clientMinimum))) return planned;
  return { value: clientMinimum, by: [CLIENT_MINIMUM] };
}

/** Why a login whose acr claim is `achieved` does not meet `minimum` (for error_description), or undefined when it does. */
export function belowMinimum(achieved: string, minimum: MinimumAcr | undefined): string | undefined {
  if (minimum === undefined || meetsMinimum(achieved, minimum)) return undefined;
  return `the login reached acr ${achieved}; ${minimum.by.join(" and ")} asks for ${minimum.value}`;
}

/** Who asks for a minimum, and how: for `portcullis policy explain` and error descriptions. */
export const CLIENT_MINIMUM = "the client's minimum_acr";
export const ESSENTIAL_CLAIM = "the claims parameter's essential acr";

export type MinimumResult = { ok: true; minimum?: MinimumAcr } | { ok: false; description: string };

/**
 * The minimum a request's login must reach: the stronger of the client's minimum_acr and the weakest of
 * the values an essential acr claim request accepts. An essential request none of whose values this
 * provider's acr claim can ever carry cannot be met by any login.
 */
export function minimumAcrOf(clientMinimum: AcrLevel | undefined, essential: readonly string[] | undefined): MinimumResult {
  let minimum: MinimumAcr | undefined = clientMinimum && { value: clientMinimum, by: [CLIENT_MINIMUM] };
  if (essential === undefined || essential.length === 0) return { ok: true, ...(minimum && { minimum }) };
  const ranks = essential.map(acrRank).filter((rank) => rank > 0);
  if (ranks.length === 0)
    return { ok: false, description: `no login here reports an acr of ${essential.join(" or ")} (acr is ${ACR_LEVELS.join(" or ")})` };
  const value = ACR_LEVELS[Math.min(...ranks) - 1]!;
  if (minimum === undefined || acrRank(value) > acrRank(minimum.value)) minimum = { value, by: [ESSENTIAL_CLAIM] };
  else if (value === minimum.value) minimum = { value, by: [...minimum.by, ESSENTIAL_CLAIM] };
  return { ok: true, minimum };
}

/**
 * A request that must reach `2fa` but chooses no login type gets the first declared two-factor type the
 * client may use, as if acr_values had selected it; undefined when there is none (then no login can reach it).
 */
export function twoFactorTypeFor(policy: LoginPolicy, allowed: ReadonlySet<string> | undefined): string | undefined {
  for (const [key, type] of policy.loginTypes) if (type.flow === "two_factor" && (allowed === undefined || allowed.has(key))) return key;
  return undefined;
}

/** The requirements with the login type a minimum selects, recorded as selected by `by`. */
export function withLoginType(requirements: AcrRequirements, type: string, by: string): AcrRequirements {
  return { ...requirements, loginType: { type, by } };
}
