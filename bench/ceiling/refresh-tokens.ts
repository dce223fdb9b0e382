import { hash, randomBytes } from "node:crypto";
import type { Grant } from "./token-endpoint.ts";
import { sendError, sendJson } from "./http.ts";
import { LIFETIME_SECONDS, issueAccessToken, issueIdToken, type Authentication } from "./tokens.ts";

/**
 * The refresh ceiling's refresh tokens: opaque (32 random bytes), kept in a Map under their SHA-256,
 * rotated on every use; a rotated token presented again revokes its family (RFC 9700 §4.14.2), as the
 * provider does. In memory only: the provider also journals them to disk (they are durable records),
 * which is part of what the ceiling leaves out.
 */

/** config/provider.yaml's lifetimes.refresh_token: 30 days, absolute (rotation keeps it). */
const REFRESH_LIFETIME_MS = 30 * 86_400_000;

interface RefreshGrant {
  clientId: string;
  scopes: string[];
  auth: Authentication;
  familyId: string;
  expiresAt: number;
}

const live = new Map<string, RefreshGrant>();
/** Rotated tokens' hashes → their family, for reuse detection. */
const rotated = new Map<string, string>();
const revokedFamilies = new Set<string>();

/** The first token of a new family, from a code redeemed with offline_access. */
export function issueRefreshToken(clientId: string, scopes: string[], auth: Authentication): string {
  return store({ clientId, scopes, auth, familyId: randomBytes(16).toString("base64url"), expiresAt: Date.now() + REFRESH_LIFETIME_MS });
}

/** refresh_token grant: the token taken once, its client, family and expiry, a scope that only narrows → ID token, access token, successor. */
export const refreshGrant: Grant = (form, client, res) => {
  const key = hash("sha256", form.get("refresh_token") ?? "", "base64url");
  const grant = live.get(key);
  if (!grant) {
    const family = rotated.get(key);
    if (family !== undefined) revokedFamilies.add(family);
    return sendError(res, "invalid_grant");
  }
  if (grant.clientId !== client.id || grant.expiresAt < Date.now() || revokedFamilies.has(grant.familyId))
    return sendError(res, "invalid_grant");
  const requested = form.get("scope");
  const scopes = requested === null ? grant.scopes : requested.split(" ").filter((s) => s !== "");
  if (scopes.length === 0 || !scopes.every((s) => grant.scopes.includes(s))) return sendError(res, "invalid_scope");
  live.delete(key);
  rotated.set(key, grant.familyId);
  const accessToken = issueAccessToken(grant.auth.sub, client.id, scopes, grant.auth);
  // OIDC Core §12.2: the same authentication facts, no nonce.
  const idToken = issueIdToken(grant.auth, client.id, undefined, accessToken);
  sendJson(res, 200, {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: LIFETIME_SECONDS,
    scope: scopes.join(" "),
    id_token: idToken,
    refresh_token: store(grant),
  });
};

function store(grant: RefreshGrant): string {
  const token = randomBytes(32).toString("base64url");
  live.set(hash("sha256", token, "base64url"), grant);
  return token;
}
