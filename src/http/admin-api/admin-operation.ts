/** An admin API call, as its path names it (relative to /admin). */
export interface AdminOperation {
  operation: "sessions" | "sign_out";
  /** The user as the path names it (percent-decoded): a login name, an employee's sub, an external account's sub. */
  user: string;
}

/** The routes of each operation, below /admin (Express patterns). */
export const ADMIN_PATHS = { sessions: "/users/:user/sessions", sign_out: "/users/:user/sign-out" } as const;

const OPERATIONS = { sessions: "sessions", "sign-out": "sign_out" } as const;
const PATH = /^\/users\/([^/]+)\/(sessions|sign-out)$/;
/** Longer than any user name or sub: not a user, and not worth writing to the audit trail in full. */
const MAX_USER_LENGTH = 256;

/**
 * The operation a path names, for the audit trail of a call that may have been refused before its route
 * ran: `/users/<user>/sessions` or `/users/<user>/sign-out`; undefined for any other path, a user that
 * does not decode (a stray `%`) or is longer than any user could be.
 */
export function adminOperation(path: string): AdminOperation | undefined {
  const match = PATH.exec(path);
  if (match === null) return undefined;
  let user: string;
  try {
    user = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  if (user.length > MAX_USER_LENGTH) return undefined;
  return { operation: OPERATIONS[match[2] as keyof typeof OPERATIONS], user };
}
