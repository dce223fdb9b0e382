import type { TotpKey } from "./totp-enrollment-record.ts";
import type { TotpSettings } from "./totp-settings.ts";
import { TimeStepClaims, matchTimeStep, type PluginContext } from "../../../src/plugin-contract/index.ts";

/**
 * True when `code` is the key's code within one step of now (the provider's clock) and its time step
 * had not been used by this user: the step is claimed now, so the same code, or any code of a step
 * already used, is refused from here on.
 */
export async function acceptCode(context: PluginContext<TotpSettings>, sub: string, key: TotpKey, code: string): Promise<boolean> {
  const now = context.services.clock();
  const step = await matchTimeStep(key, code, now);
  if (step === undefined) return false;
  const claims = new TimeStepClaims(context.services.store.namespace<true>("methodChallenges"), context.methodId);
  return claims.claim(sub, step, key.period, now);
}
