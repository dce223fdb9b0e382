import type { ScopeRegistry } from "../scopes/scope-registry.ts";
import { epochSeconds, type Clock } from "../time/clock.ts";
import type { AccessTokenIssuer } from "../tokens/access-token.ts";

/** The scope the channel-account service asks of a directory call. */
import { CHANNEL_DIRECTORY_SCOPE } from "../config/reserved-scopes.ts";

export { CHANNEL_DIRECTORY_SCOPE };

/** Renewed this long before it expires, so a token never lapses between being read and being checked. */
const RENEW_BEFORE_SECONDS = 60;

/**
 * The access token the http directory sends: a client_credentials token of the configured client with
 * the `channel.directory` scope, which the provider issues itself (it is the issuer: a round trip to its
 * own token endpoint would only add a secret to configure). Always a JWT, whatever the client's format:
 * the service validates it against our JWKS. Kept until shortly before it expires.
 */
export function channelDirectoryToken(
  issuer: AccessTokenIssuer,
  resources: () => Pick<ScopeRegistry, "resourcesFor">,
  clientId: string,
  lifetime: number,
  clock: Clock,
): () => string {
  let current: { token: string; exp: number } | undefined;
  return () => {
    if (!current || current.exp - RENEW_BEFORE_SECONDS <= epochSeconds(clock)) {
      const { token, claims } = issuer.issue({
        sub: clientId,
        clientId,
        scopes: [CHANNEL_DIRECTORY_SCOPE],
        resources: resources(),
        lifetime,
      });
      current = { token, exp: claims.exp };
    }
    return current.token;
  };
}
