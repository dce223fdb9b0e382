import type { AssertionReplay } from "./assertion-replay.ts";
import type { RemoteJwks } from "./remote-jwks.ts";

/**
 * What client authentication keeps beyond one request, built once per process (src/provider.ts): the
 * jtis of accepted assertions (in the store, shared by every node) and the jwks_uri sets fetched.
 */
export interface ClientAuthenticationServices {
  readonly replay: AssertionReplay;
  readonly remoteJwks: RemoteJwks;
}
