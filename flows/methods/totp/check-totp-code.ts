import { acceptCode } from "./accept-code.ts";
import { openKey, type TotpEnrollment } from "./totp-enrollment-record.ts";
import type { TotpSettings } from "./totp-settings.ts";
import type { Enrollment, PluginContext } from "../../../src/plugin-contract/index.ts";

/**
 * The login check: true when `code` is the user's current code, used for the first time. The attempt
 * is counted before anything is looked at (concurrent guesses cannot all slip under the limit), and a
 * locked account, a user without a TOTP enrollment (a decoy sub included) and a wrong code all give the
 * same false.
 */
export async function checkTotpCode(context: PluginContext<TotpSettings>, sub: string, code: string): Promise<boolean> {
  if (!(await context.attempts.tryAttempt(sub))) return false;
  const enrolled = (await context.enrollments.get(sub)) as Enrollment<TotpEnrollment> | undefined;
  if (!enrolled) return false;
  const accepted = await acceptCode(context, sub, openKey(context.services, context.methodId, sub, enrolled.data), code);
  if (accepted) await context.attempts.succeeded(sub);
  return accepted;
}
