import type { LoginPlan } from "../../login-policy/plan-login.ts";
import { parseVendorSub } from "../../users/vendor-accounts.ts";

/** Stands for the hidden part of a login_hint: always three, so the hint's length does not show. */
const HIDDEN = "•••";
/** Control, format (bidi overrides) and unassigned characters: a kept character of these could disturb the sentence around it. */
const INVISIBLE = /\p{C}/u;

/**
 * Whose login a second-factor page is (login.hbs "Signing in as …"): the login_hint as the page may
 * show it, or undefined where the login does not take its user from the hint (the default flow only
 * prefills the user name field with it). docs/decisions.md "Login policy" has the reasons.
 *
 * - MyVendor (`login_hint: vendor`): the account part of `<client_id>:<account>` as it is. The client's
 *   signature vouches for it, the provider knows nothing more of the account, and a first use binds an
 *   authenticator to it: the user must see exactly which account that is.
 * - Mfa and its variants (`login_hint: required`): the hint masked. Anyone can write a login_hint, so
 *   the page never looks it up (a directory name would tell a stranger who is behind an employee
 *   number) and shows so little of it that it cannot carry a message of its own on the provider's page.
 */
export function verifyingAccount(plan: LoginPlan | undefined, loginHint: string | undefined): string | undefined {
  if (plan?.vendorAccount !== undefined) return parseVendorSub(plan.vendorAccount)?.account;
  if (plan?.loginHint === "required" && loginHint !== undefined) return maskLoginHint(loginHint);
  return undefined;
}

/**
 * The hint with all but its first one or two characters and its last hidden: never more than half of
 * it shows (alice → a•••e, E10001 → E1•••1, bob → b•••), enough for its owner to recognise.
 */
export function maskLoginHint(hint: string): string {
  const chars = Array.from(hint, (c) => (INVISIBLE.test(c) ? "•" : c));
  const head = chars.length >= 6 ? 2 : 1;
  const tail = chars.length >= 4 ? 1 : 0;
  return `${chars.slice(0, head).join("")}${HIDDEN}${chars.slice(chars.length - tail).join("")}`;
}
