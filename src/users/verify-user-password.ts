import { hashPassword, verifyPassword } from "../crypto/password-hash.ts";
import type { ConcurrencyGate } from "../security/concurrency-gate.ts";
import type { UserDirectory } from "./user-directory.ts";
import type { AttemptLimiter } from "../security/attempt-limiter.ts";

// Verified against when there is no real hash to check, so unknown, disabled and locked accounts
// cost the same scrypt time as a wrong password and cannot be told apart by timing.
const decoyHash = hashPassword("portcullis-decoy-password");

/**
 * Checks a user name and password against the directory under the per-account attempt limit `attempts`; the
 * user's sub when they match. Wrong password, unknown user, disabled user and locked account all give
 * undefined, after the same work, so callers cannot reveal which it was. The scrypt runs through the
 * provider's concurrency gate (503 when too many are waiting).
 */
export async function verifyUserPassword(
  provider: { readonly users: UserDirectory; readonly passwordChecks: ConcurrencyGate },
  attempts: AttemptLimiter,
  username: string,
  password: string,
): Promise<string | undefined> {
  const user = provider.users.findByUsername(username);
  const allowed = await attempts.tryAttempt(username);
  const hash = allowed && user !== undefined && !user.disabled ? user.password_hash : undefined;
  const decoy = await decoyHash;
  const matches = await provider.passwordChecks.run(() => verifyPassword(password, hash ?? decoy));
  if (hash === undefined || !matches) return undefined;
  await attempts.succeeded(username);
  return user!.sub;
}
