import type { ConfigData } from "./cross-field-rule.ts";

/**
 * Settings that follow from others, applied once after validation so no consumer has to remember
 * them. A public client cannot authenticate, so PKCE is what binds its code to it (RFC 9700 §2.1.1).
 */
export function normaliseConfig(config: ConfigData): void {
  for (const client of config.clients.clients) {
    if (client.type === "public") client.require_pkce = true;
  }
}
