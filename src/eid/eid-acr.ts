import { ONE_FACTOR_ACR } from "../config/one-factor-acr.ts";
import type { EidUpstream } from "./eid-upstream.ts";

/** An upstream's acr mapping (login.yaml `eid_upstreams.<id>.acr`); absent parts map nothing. */
type AcrMapping = Partial<EidUpstream["acr"]> | undefined;

/**
 * The acr_values to send the upstream for what the request asks (declared acr values, as
 * acr-asked-of-upstream.ts found them): each one's `forward` values, in the order asked, each once.
 */
export function upstreamAcrValues(mapping: AcrMapping, asked: readonly string[]): string[] {
  const values: string[] = [];
  for (const name of asked) {
    const forwarded = mapping?.forward?.[name];
    if (forwarded === undefined) continue;
    for (const value of forwarded.split(" ")) if (!values.includes(value)) values.push(value);
  }
  return values;
}

/**
 * This provider's acr for an upstream login: what `performed` says the upstream ID token's acr means.
 * An acr the mapping does not list, a missing one, or one that is no string is a one-factor login:
 * what the upstream did not vouch for is never assumed, and what was asked never counts.
 */
export function performedAcr(mapping: AcrMapping, upstreamAcr: unknown): string {
  if (typeof upstreamAcr !== "string") return ONE_FACTOR_ACR;
  const performed = mapping?.performed;
  return performed !== undefined && Object.hasOwn(performed, upstreamAcr) ? performed[upstreamAcr]! : ONE_FACTOR_ACR;
}

/** Whether an upstream login that performed `acr` meets what was asked (nothing asked is always met). */
export function meetsAsked(acr: string, asked: readonly string[]): boolean {
  return asked.length === 0 || asked.includes(acr);
}
