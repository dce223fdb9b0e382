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
  const fail = () => invalidClient("client authentication failed", presented.usedBasic);
  if (!client) {
    verifySecret(presented.secret ?? "", DUMMY_HASH);
    throw fail();
  }
  if (client.type === "public") {
    if (presented.secret !== undefined) throw fail();
    return client;
  }
  if (presented.secret === undefined || client.secretHash === undefined || !verifySecret(presented.secret, client.secretHash)) throw fail();
  return client;
}
