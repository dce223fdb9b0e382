import type { Authentication } from "../oauth/authorization-request.ts";
import type { ConfiguredMethod } from "./method-plugins.ts";

/**
 * What a finished login flow proves (DESIGN "amr values", "acr claim"): amr lists the methods' amr
 * values in the order used, plus `mfa` when both classes were used; acr is `2fa` then, else `1fa`.
 */
export function authenticationResult(output: { sub: string; methods: string[]; evidence?: Record<string, Record<string, unknown>> }, methods: ReadonlyMap<string, ConfiguredMethod>, nowMs: number): Authentication {
  const used = output.methods.map((id) => methods.get(id)!);
  const classes = new Set(used.map((m) => m.plugin.class));
  const twoFactor = classes.has("trusted") && classes.has("untrusted");
  const amr = [...new Set(used.map((m) => m.amr))];
  const result: Authentication = { sub: output.sub, authTime: Math.floor(nowMs / 1000), amr: twoFactor ? [...amr, "mfa"] : amr, acr: twoFactor ? "2fa" : "1fa" };
  return output.evidence ? { ...result, evidence: output.evidence } : result;
}
