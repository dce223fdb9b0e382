import type { ClientConfig } from "../config/types.generated.ts";
import { verifySecret } from "../crypto/secret-hash.ts";

/** One of a client's secrets: its hash, when it stops working, and what the audit trail calls it. */
export interface ClientSecret {
  readonly hash: string;
  /** Epoch milliseconds; undefined: no expiry. */
  readonly expiresAt: number | undefined;
  /**
   * The first 8 hex digits of the hash: enough for an operator to tell the two secrets of a rotation
   * apart in the audit trail, and nothing an attacker can use (it is a prefix of a hash of 256 random bits).
   */
  readonly fingerprint: string;
}

/** The client's secrets, whichever way clients.yaml gives them (client_secret_hash, or client_secrets during a rotation). */
export function clientSecrets(c: ClientConfig): readonly ClientSecret[] {
  const listed = c.client_secrets ?? (c.client_secret_hash === undefined ? [] : [{ hash: c.client_secret_hash }]);
  return listed.map((s) => ({
    hash: s.hash,
    expiresAt: "expires" in s && s.expires !== undefined ? Date.parse(s.expires) : undefined,
    fingerprint: s.hash.slice("sha256:".length, "sha256:".length + 8),
  }));
}

/** Which secret a presented one is, if any, and whether it has expired at `now`. */
export type SecretMatch = { secret: ClientSecret; expired: boolean } | undefined;

/**
 * The presented secret against every secret of the client, each compared in constant time and all of
 * them compared whatever the outcome, so the time taken says nothing of which one matched.
 */
export function matchSecret(secrets: readonly ClientSecret[], presented: string, now: number): SecretMatch {
  let match: SecretMatch;
  for (const secret of secrets) {
    if (verifySecret(presented, secret.hash) && match === undefined)
      match = { secret, expired: secret.expiresAt !== undefined && secret.expiresAt <= now };
  }
  return match;
}
