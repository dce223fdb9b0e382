import type { LoadedConfig } from "../config/load-config.ts";
import { parseDuration } from "../time/duration.ts";
import { KEY_SYNC_EVERY_MS } from "./key-manager.ts";
import type { RotationPolicy } from "./key-rotation.ts";

/** The clients' own token lifetimes (seconds; ClientRegistry, named structurally: oauth depends on tokens, not back). */
export interface SignedLifetimes {
  all(): Iterable<{ lifetimes: { accessToken: number; idToken: number } }>;
}

/**
 * The generated keys' lifecycle as provider.yaml sets it, for the key manager and for the operator's
 * `portcullis keys` alike. A retired key stays published for the longest lifetime of anything it signed,
 * plus one sync interval: a node that has not yet re-read the ring still signs with a key the ring has retired.
 */
export function rotationPolicy(config: LoadedConfig, clients: SignedLifetimes): RotationPolicy {
  const keys = config.provider.keys;
  return {
    rotateEvery: parseDuration(keys.rotate_every) * 1000,
    announceFor: parseDuration(keys.announce_for) * 1000,
    retainFor: longestSignedLifetime(config, clients) * 1000 + KEY_SYNC_EVERY_MS,
  };
}

/** The longest a signed token can stay valid (seconds): how long a retired key must stay published. */
function longestSignedLifetime(config: LoadedConfig, clients: SignedLifetimes): number {
  const l = config.provider.lifetimes;
  const lifetimes = [l.access_token, l.id_token, l.client_credentials_access_token].map(parseDuration);
  for (const c of clients.all()) lifetimes.push(c.lifetimes.accessToken, c.lifetimes.idToken);
  return Math.max(...lifetimes);
}
