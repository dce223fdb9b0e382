import { hash, timingSafeEqual } from "node:crypto";
import { DEMO_SERVICE, DEMO_WEB } from "../demo-accounts.ts";

/**
 * The ceilings' client registry: the two demo clients the bench presents, in a Map, with their secrets
 * stored as SHA-256 digests as config/clients.yaml stores them.
 */
export interface CeilingClient {
  id: string;
  secretDigest: Buffer;
  grantTypes: ReadonlySet<string>;
  allowedScopes: ReadonlySet<string>;
  redirectUris: ReadonlySet<string>;
}

const sha256 = (text: string) => hash("sha256", text, "buffer");

const CLIENTS = new Map<string, CeilingClient>(
  [{ ...DEMO_SERVICE, redirectUris: [] }, { ...DEMO_WEB }].map(({ clientId, clientSecret, grantTypes, allowedScopes, redirectUris }) => [
    clientId,
    {
      id: clientId,
      secretDigest: sha256(clientSecret),
      grantTypes: new Set(grantTypes),
      allowedScopes: new Set(allowedScopes),
      redirectUris: new Set(redirectUris),
    },
  ]),
);

export function findClient(clientId: string | null): CeilingClient | undefined {
  return clientId === null ? undefined : CLIENTS.get(clientId);
}

/** client_secret_post: the client named in the form, if the form's secret is its secret. */
export function authenticateClient(form: URLSearchParams): CeilingClient | undefined {
  const client = findClient(form.get("client_id"));
  const secret = form.get("client_secret");
  if (!client || secret === null) return undefined;
  return timingSafeEqual(sha256(secret), client.secretDigest) ? client : undefined;
}

/**
 * The requested scopes, if the client may have every one of them; with no scope parameter, all it may
 * have (as the provider grants). Undefined when any is not allowed.
 */
export function grantedScopes(client: CeilingClient, requested: string | null): string[] | undefined {
  if (requested === null) return [...client.allowedScopes];
  const scopes = requested.split(" ").filter((s) => s !== "");
  return scopes.length > 0 && scopes.every((s) => client.allowedScopes.has(s)) ? scopes : undefined;
}
