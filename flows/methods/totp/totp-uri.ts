import { generateURI } from "otplib";
import type { TotpKey } from "./totp-enrollment-record.ts";
import type { TotpSettings } from "./totp-settings.ts";
import type { PluginContext } from "../../../src/plugin-contract/index.ts";

/**
 * The otpauth:// URI an authenticator app scans (Key Uri Format): the configured issuer, the user's
 * login name as the account (what they recognise; the sub is an internal number), the secret and
 * its parameters.
 */
export async function otpauthUri(context: PluginContext<TotpSettings>, sub: string, key: TotpKey): Promise<string> {
  const account = (await context.services.users.findBySub(sub))?.username ?? sub;
  return generateURI({ issuer: context.settings.issuer, label: account, secret: key.secret, digits: key.digits, period: key.period });
}
