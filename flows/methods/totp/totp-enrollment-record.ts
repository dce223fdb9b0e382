import type { TotpSettings } from "./totp-settings.ts";
import type { PluginServices, TotpKey } from "../../../src/plugin-contract/index.ts";

/**
 * What the TOTP method keeps per user (the enrollment record's data): the shared secret sealed with the
 * provider's SecretBox, and the code parameters the user's app was given, so a later change of the
 * settings does not break existing enrollments.
 */
export interface TotpEnrollment {
  /** The base32 secret, sealed (`provider.secretBox`) for this method and user. */
  secret: string;
  digits: 6 | 8;
  period: number;
}

export type { TotpKey };

/**
 * The SecretBox context of a secret: bound to the method and the user, and to its stage, so a pending
 * secret (shown, not yet confirmed) and an enrolled one never open in each other's place.
 */
export const sealContext = (methodId: string, sub: string, stage: "enrolled" | "pending") => `${methodId}:${stage}:${sub}`;

export function sealKey(services: PluginServices, methodId: string, sub: string, key: TotpKey): TotpEnrollment {
  return { secret: services.secretBox.seal(key.secret, sealContext(methodId, sub, "enrolled")), digits: key.digits, period: key.period };
}

export function openKey(services: PluginServices, methodId: string, sub: string, record: TotpEnrollment): TotpKey {
  return {
    secret: services.secretBox.open(record.secret, sealContext(methodId, sub, "enrolled")),
    digits: record.digits,
    period: record.period,
  };
}

/** The parameters of a new enrollment. */
export const newKeyParameters = (settings: TotpSettings) => ({ digits: settings.digits, period: settings.period });
