import type { ConcurrencyGate } from "../security/concurrency-gate.ts";
import type { UserDirectory } from "./user-directory.ts";
import type { AttemptLimiter } from "../security/attempt-limiter.ts";

/**
 * Checks a user name and password against the directory under the per-account attempt limit `attempts`; the
 * user's sub when they match. Wrong password, unknown user, disabled user and locked account all give
 * undefined, after the same work, so callers cannot reveal which it was. The check (a scrypt, or a bind
 * to the LDAP directory) runs through the provider's concurrency gate (503 when too many are waiting).
 */
export async function verifyUserPassword(
  provider: { readonly users: UserDirectory; readonly passwordChecks: ConcurrencyGate },
  attempts: AttemptLimiter,
  username: string,
  password: string,
): Promise<string | undefined> {
  const user = await provider.users.findByUsername(username);
  // A directory known to be down refuses before the attempt is counted (a cached entry would let it count).
  await provider.users.reachable();
  const allowed = await attempts.tryAttempt(username);
  const candidate = allowed && user !== undefined && !user.disabled && user.hasPassword ? user : undefined;
  const matches = await provider.passwordChecks.run(() => provider.users.checkPassword(candidate, password));
  if (candidate === undefined || !matches) return undefined;
  await attempts.succeeded(username);
  return candidate.sub;
}
