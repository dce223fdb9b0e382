import type { AuditTrail } from "./audit-trail.ts";
import type { UserDirectory } from "../users/user-directory.ts";

/**
 * An AttemptLimiter's onLockout for a factor method: records the lockout of the user the subject names.
 * The subject is a sub, or for the password method the user name as typed — which is recorded only
 * when it names a user (then as that user's sub): what someone typed is never written, in case it was
 * a password in the wrong field.
 */
export function recordLockout(
  provider: { readonly audit: AuditTrail; readonly users: Pick<UserDirectory, "findBySub" | "findByUsername"> },
  method: string,
) {
  return async (subject: string): Promise<void> => {
    // A directory that cannot answer now leaves the lockout unrecorded rather than failing the attempt it refuses.
    const find = async () => (await provider.users.findBySub(subject))?.sub ?? (await provider.users.findByUsername(subject))?.sub;
    const sub = await find().catch(() => undefined);
    if (sub !== undefined) provider.audit.record({ type: "lockout", sub, method });
  };
}
