import { verifySecret } from "./secret-hash.ts";

/** One of a client's (or an API resource's) secrets: its hash, when it stops working, and what the audit trail calls it. */
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

/** A listed secret as the config gives it: its hash and, during a rotation, its RFC 3339 expiry. */
export interface ListedSecret {
  hash: string;
  expires?: string;
}

/** The secrets, whichever way the config gives them: one hash (client_secret_hash, api_secret_hash), or a list during a rotation (client_secrets). */
export function clientSecrets(single: string | undefined, listed: readonly ListedSecret[] | undefined): readonly ClientSecret[] {
  return (listed ?? (single === undefined ? [] : [{ hash: single }])).map((s) => ({
    hash: s.hash,
    expiresAt: s.expires !== undefined ? Date.parse(s.expires) : undefined,
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
