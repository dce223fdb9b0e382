import type { ProviderFile } from "../config/types.generated.ts";
import type { Client } from "./client-registry.ts";

/**
 * RFC 9126 §5 and §6: whether a login for this client may start only from a pushed authorization request —
 * its own clients.yaml setting, or provider.yaml's for every client. Asked wherever a login can start.
 */
export function requiresPushedRequests(
  client: Pick<Client, "requirePushedRequests"> | undefined,
  provider: Pick<ProviderFile, "require_pushed_authorization_requests">,
): boolean {
  return provider.require_pushed_authorization_requests || client?.requirePushedRequests === true;
}
