import type { Authentication } from "../oauth/authorization-request.ts";
import type { ConfiguredMethod } from "./method-plugins.ts";

/**
 * What a finished login flow proves (DESIGN "amr values", "acr claim"): amr lists the methods' amr
 * values in the order used, plus `mfa` when both classes were used; acr is `2fa` then, else `1fa`.
 * A step-up counts the methods the session had passed (`priorMethods`) first; a method id that is not a
 * configured factor method (an eID login's `eid`) is its own amr and of no class. An eID login's acr is
 * the one its output carries: what the upstream performed, mapped back (src/eid/eid-acr.ts).
 */
export function authenticationResult(
  output: { sub: string; methods: string[]; evidence?: Record<string, Record<string, unknown>>; acr?: string },
  methods: ReadonlyMap<string, ConfiguredMethod>,
  nowMs: number,
  priorMethods: readonly string[] = [],
): Authentication {
  const passed = [...new Set([...priorMethods, ...output.methods])];
  const classes = new Set(passed.map((id) => methods.get(id)?.plugin.class));
  const twoFactor = classes.has("trusted") && classes.has("untrusted");
  const amr = [...new Set(passed.map((id) => methods.get(id)?.amr ?? id))];
  const result: Authentication = {
    sub: output.sub,
    authTime: Math.floor(nowMs / 1000),
    amr: twoFactor ? [...amr, "mfa"] : amr,
    acr: output.acr ?? (twoFactor ? "2fa" : "1fa"),
    methods: passed,
  };
  return output.evidence ? { ...result, evidence: output.evidence } : result;
}
