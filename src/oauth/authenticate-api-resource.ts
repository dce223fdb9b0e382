import { hashSecret, verifySecret } from "../crypto/secret-hash.ts";
import type { ApiResource, ScopeRegistry } from "../scopes/scope-registry.ts";
import { invalidClient } from "../errors/oauth-error.ts";
import type { PresentedCredentials } from "./client-credentials-extract.ts";

// Compared against when the resource is unknown or has no ApiSecret, so every failure costs the same.
const DUMMY_HASH = hashSecret("portcullis-no-such-api-resource");

/** An API resource (introspection caller) proves itself with its name and ApiSecret; every failure is 401 invalid_client. */
export function authenticateApiResource(scopes: ScopeRegistry, presented: PresentedCredentials): ApiResource {
  const resource = scopes.resource(presented.clientId);
  const ok = verifySecret(presented.secret ?? "", resource?.secretHash ?? DUMMY_HASH);
  if (!ok || resource?.secretHash === undefined || presented.secret === undefined) {
    throw invalidClient("API resource authentication failed", presented.usedBasic);
  }
  return resource;
}
