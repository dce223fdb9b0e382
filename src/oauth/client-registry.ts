import type { ClientConfig, ProviderFile } from "../config/types.generated.ts";
import type { AccessTokenFormat } from "../tokens/access-token.ts";
import { parseDuration } from "../time/duration.ts";
import type { AuthMethod } from "./authenticate-party.ts";
import { type ClientSecret, clientSecrets } from "../crypto/client-secrets.ts";
import { type PublicKeySource, publicKeySource } from "../crypto/client-public-keys.ts";
import type { SigningAlg } from "../crypto/signing-alg.ts";
import { CLIENT_ASSERTION_ALGORITHMS, type ClientAssertionAlgorithm } from "../crypto/client-jwk.ts";
import { DPOP_ALGORITHMS, type DpopAlgorithm } from "../crypto/dpop-algorithms.ts";

export type GrantType = ClientConfig["grant_types"][number];
export type ClientAuthMethod = AuthMethod;

/** A registered client as the protocol layer uses it: sets for lookups, lifetimes resolved to seconds. */

export interface Client {
  readonly id: string;
  readonly name: string;
  readonly type: "confidential" | "public";
  /** How it may authenticate: token_endpoint_auth_method, or (omitted) both secret methods for a confidential client, none for a public one. */
  readonly authMethods: ReadonlySet<ClientAuthMethod>;
  /** Its secrets (client_secret_hash, or the one or two of client_secrets); none for a private_key_jwt or public client. */
  readonly secrets: readonly ClientSecret[];
  /** A private_key_jwt client's keys; undefined for every other client. */
  readonly keys: PublicKeySource | undefined;
  readonly grantTypes: ReadonlySet<GrantType>;
  readonly redirectUris: ReadonlySet<string>;
  readonly postLogoutRedirectUris: ReadonlySet<string>;
  readonly allowedScopes: ReadonlySet<string>;
  readonly offlineAccess: boolean;
  /** Whether its refresh tokens from an SSO session stop working when the session ends. */
  readonly refreshTokenEndsWithSession: boolean;
  readonly requirePkce: boolean;
  readonly allowPlainPkce: boolean;
  /** clients.yaml require_dpop: every token request must carry a DPoP proof (RFC 9449). */
  readonly requireDpop: boolean;
  /** RFC 9126 §6: its logins start only with a pushed authorization request (provider.yaml can require it of every client too). */
  readonly requirePushedRequests: boolean;
  /** The algorithms its private_key_jwt assertions may be signed with. */
  readonly assertionAlgorithms: readonly ClientAssertionAlgorithm[];
  /** The algorithms its DPoP proofs may be signed with, at the token and pushed authorization request endpoints. */
  readonly dpopAlgorithms: readonly DpopAlgorithm[];
  /**
   * Whether a refresh replaces its refresh token (RFC 9700 §4.14.2, with reuse detection). Off for a FAPI 2.0
   * client: the same token keeps working until it expires or is revoked (FAPI 2.0 §5.3.2.1 discourages rotation).
   */
  readonly rotatesRefreshTokens: boolean;
  /** What every grant issues this client as its access token. */
  readonly accessTokenFormat: AccessTokenFormat;
  /** id_token_signed_response_alg: its ID tokens' and logout tokens' JWS algorithm. */
  readonly idTokenAlg: SigningAlg;
  /** access_token_signed_response_alg: its JWT access tokens' JWS algorithm. */
  readonly accessTokenAlg: SigningAlg;
  /** Seconds. `clientCredentialsAccessToken`: the client's own access-token lifetime, else provider.yaml's for client_credentials. */
  readonly lifetimes: {
    accessToken: number;
    idToken: number;
    refreshToken: number;
    authorizationCode: number;
    clientCredentialsAccessToken: number;
  };
  /** allowed_login_types lower-cased (login types match without regard to case); undefined: every declared type. */
  readonly allowedLoginTypes: ReadonlySet<string> | undefined;
  /** signing_key (resolved from its ${env:…}/${file:…} reference): the key of MyVendor signatures; none: no vendor login can pass. */
  readonly vendorSigningKey: string | undefined;
  readonly config: ClientConfig;
}

export class ClientRegistry {
  private readonly byId: ReadonlyMap<string, Client>;

  constructor(clients: readonly ClientConfig[], defaults: ProviderFile["lifetimes"]) {
    this.byId = new Map(clients.map((c) => [c.client_id, toClient(c, defaults)]));
  }

  get(clientId: string): Client | undefined {
    return this.byId.get(clientId);
  }

  all(): IterableIterator<Client> {
    return this.byId.values();
  }
}

function toClient(c: ClientConfig, defaults: ProviderFile["lifetimes"]): Client {
  const own = c.lifetimes ?? {};
  return {
    id: c.client_id,
    name: c.name ?? c.client_id,
    type: c.type,
    authMethods: new Set(authMethodsOf(c)),
    secrets: clientSecrets(c.client_secret_hash, c.client_secrets),
    keys: publicKeySource(c),
    grantTypes: new Set(c.grant_types),
    redirectUris: new Set(c.redirect_uris),
    postLogoutRedirectUris: new Set(c.post_logout_redirect_uris),
    allowedScopes: new Set(c.allowed_scopes),
    offlineAccess: c.offline_access,
    refreshTokenEndsWithSession: c.refresh_token_ends_with_session,
    requirePkce: c.require_pkce || c.type === "public",
    allowPlainPkce: c.allow_plain_pkce,
    requireDpop: c.require_dpop,
    requirePushedRequests: c.require_pushed_authorization_requests,
    ...algorithmsAndRotation(c),
    accessTokenFormat: c.access_token_format,
    idTokenAlg: c.id_token_signed_response_alg,
    accessTokenAlg: c.access_token_signed_response_alg,
    lifetimes: {
      accessToken: parseDuration(own.access_token ?? defaults.access_token),
      idToken: parseDuration(own.id_token ?? defaults.id_token),
      refreshToken: parseDuration(own.refresh_token ?? defaults.refresh_token),
      authorizationCode: parseDuration(own.authorization_code ?? defaults.authorization_code),
      clientCredentialsAccessToken: parseDuration(own.access_token ?? defaults.client_credentials_access_token),
    },
    allowedLoginTypes: c.allowed_login_types && new Set(c.allowed_login_types.map((name) => name.toLowerCase())),
    vendorSigningKey: c.signing_key,
    config: c,
  };
}

/**
 * What `profile: fapi2` changes beyond the settings it fills into clients.yaml (src/config/fapi2-profile.ts):
 * FAPI 2.0 §5.4 algorithms only (no RS256) for what the client signs, and refresh tokens not rotated.
 */
function algorithmsAndRotation(c: ClientConfig): Pick<Client, "assertionAlgorithms" | "dpopAlgorithms" | "rotatesRefreshTokens"> {
  if (c.profile !== "fapi2")
    return { assertionAlgorithms: CLIENT_ASSERTION_ALGORITHMS, dpopAlgorithms: DPOP_ALGORITHMS, rotatesRefreshTokens: true };
  return {
    assertionAlgorithms: CLIENT_ASSERTION_ALGORITHMS.filter((alg) => alg !== "RS256"),
    dpopAlgorithms: DPOP_ALGORITHMS.filter((alg) => alg !== "RS256"),
    rotatesRefreshTokens: false,
  };
}

function authMethodsOf(c: ClientConfig): ClientAuthMethod[] {
  if (c.token_endpoint_auth_method !== undefined) return [c.token_endpoint_auth_method];
  return c.type === "public" ? ["none"] : ["client_secret_basic", "client_secret_post"];
}
