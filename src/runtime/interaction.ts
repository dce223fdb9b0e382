import type { AuthorizationRequest } from "../oauth/authorization-request.ts";

/**
 * One authorize request that needs the user: the login flow's persisted snapshot and everything needed
 * to finish the authorization. Bound to the browser that started it by a cookie (stored as a hash), and
 * to its forms by a CSRF token.
 */
export interface Interaction {
  id: string;
  /** SHA-256 of the browser-binding cookie value. */
  browserHash: string;
  csrf: string;
  request: AuthorizationRequest;
  flowId: string;
  /** Hash of the flow's machine definitions when the snapshot was taken: a changed flow restarts cleanly. */
  flowHash: string;
  /** XState persisted snapshot, never taken while an invoked actor runs. Absent before the first step. */
  snapshot?: unknown;
  /** prompt=login over a live session: whom the page says is signed in. */
  signedInAs?: string;
  /** Epoch ms. */
  expiresAt: number;
}
