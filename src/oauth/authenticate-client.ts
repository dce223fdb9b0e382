import { verifySecret, hashSecret } from "../crypto/secret-hash.ts";
import type { Client, ClientRegistry } from "./client-registry.ts";
import { invalidClient } from "../errors/oauth-error.ts";
import type { PresentedCredentials } from "./client-credentials-extract.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";

// Compared against when the client is unknown, so an unknown id costs what a wrong secret costs.
const DUMMY_HASH = hashSecret("portcullis-no-such-client");

/**
 * Confidential clients must present their secret; public clients must not present one
 * (they prove themselves with PKCE instead). Every failure is the same 401 invalid_client.
 */
export function authenticateClient(clients: ClientRegistry, presented: PresentedCredentials, audit?: AuditTrail): Client {
  const client = clients.get(presented.clientId);
  if (!client) {
    verifySecret(presented.secret ?? "", DUMMY_HASH);
    throw failed(presented, undefined, audit);
  }
  if (client.type === "public") {
    if (presented.secret !== undefined) throw failed(presented, client, audit);
    return client;
  }
  if (presented.secret === undefined || client.secretHash === undefined || !verifySecret(presented.secret, client.secretHash))
    throw failed(presented, client, audit);
  return client;
}

/**
 * The one answer to every failure, audited: a run of these is someone guessing a client's secret. The trail names a registered client
 * only; an unknown id is whatever was typed, which could be a secret.
 */
function failed(presented: PresentedCredentials, client: Client | undefined, audit: AuditTrail | undefined) {
  audit?.record({ type: "client.authentication_failed", ...(client !== undefined && { client_id: client.id }) });
  return invalidClient("client authentication failed", presented.usedBasic);
}
