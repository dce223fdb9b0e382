import { verifySecret, hashSecret } from "../crypto/secret-hash.ts";
import type { Client, ClientRegistry } from "./client-registry.ts";
import { invalidClient } from "../errors/oauth-error.ts";
import type { PresentedCredentials } from "./client-credentials-extract.ts";

// Compared against when the client is unknown, so an unknown id costs what a wrong secret costs.
const DUMMY_HASH = hashSecret("portcullis-no-such-client");

/**
 * Confidential clients must present their secret; public clients must not present one
 * (they prove themselves with PKCE instead). Every failure is the same 401 invalid_client.
 */
export function authenticateClient(clients: ClientRegistry, presented: PresentedCredentials): Client {
  const client = clients.get(presented.clientId);
  if (!client) {
    verifySecret(presented.secret ?? "", DUMMY_HASH);
    throw failed(presented);
  }
  if (client.type === "public") {
    if (presented.secret !== undefined) throw failed(presented);
    return client;
  }
  if (presented.secret === undefined || client.secretHash === undefined || !verifySecret(presented.secret, client.secretHash)) throw failed(presented);
  return client;
}

/** The one answer to every failure (a function of the module, not a closure made per token request). */
function failed(presented: PresentedCredentials) {
  return invalidClient("client authentication failed", presented.usedBasic);
}
