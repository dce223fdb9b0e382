import type { Client } from "../../oauth/client-registry.ts";
import { originOf } from "../../views/page-headers.ts";

/** The origins that may frame a client's iframe_authz pages: those of its registered redirect URIs. */
export function clientFrameAncestors(client: Client): string[] {
  return [...new Set([...client.redirectUris].map(originOf).filter((o): o is string => o !== undefined))];
}
