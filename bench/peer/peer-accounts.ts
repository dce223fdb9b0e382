import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

/**
 * The demo directory as the peer (node-oidc-provider) sees it: read from the same config/users.yaml and
 * config/scopes.yaml the provider loads, so the peer's users have the same subjects, claims and scrypt
 * password hashes (same parameters, same cost per login) and its scopes release the same claims.
 */
export interface PeerUser {
  username: string;
  sub: string;
  /** The PHC scrypt string from config/users.yaml. */
  passwordHash: string;
  claims: Record<string, unknown>;
}

export interface PeerAccounts {
  byUsername: ReadonlyMap<string, PeerUser>;
  bySub: ReadonlyMap<string, PeerUser>;
  /** Identity scope → the claims it releases (config/scopes.yaml identity_scopes). */
  scopeClaims: Record<string, string[]>;
}

interface UsersFile {
  users: Array<{ username: string; sub: string; password_hash: string; claims?: Record<string, unknown> }>;
}
interface ScopesFile {
  identity_scopes: Array<{ name: string; claims?: string[] }>;
}

export function peerAccounts(configDir: string): PeerAccounts {
  const users = (parse(readFileSync(join(configDir, "users.yaml"), "utf8")) as UsersFile).users.map(
    (u): PeerUser => ({ username: u.username, sub: u.sub, passwordHash: u.password_hash, claims: u.claims ?? {} }),
  );
  const scopes = (parse(readFileSync(join(configDir, "scopes.yaml"), "utf8")) as ScopesFile).identity_scopes;
  return {
    byUsername: new Map(users.map((u) => [u.username, u])),
    bySub: new Map(users.map((u) => [u.sub, u])),
    scopeClaims: Object.fromEntries(scopes.map((s) => [s.name, s.claims ?? []])),
  };
}
