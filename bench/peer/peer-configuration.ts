import { generateKeyPairSync, randomBytes } from "node:crypto";
import { isServiceClient, peerClientEntries } from "../bench-clients.ts";
import { AUTHORIZE_PATH, TOKEN_PATH, USERINFO_PATH } from "../code-flow.ts";
import { API_RESOURCE_OF_SCOPE, DEMO_ISSUER, DEMO_PORTAL, DEMO_SERVICE, DEMO_WEB } from "../demo-accounts.ts";
import type { PeerAccounts } from "./peer-accounts.ts";

/**
 * node-oidc-provider configured like the demo, so that the bench compares like with like: the same
 * clients (client_secret_post, the same secrets, redirect URIs and scopes), RS256 with an RSA-2048 key,
 * PKCE S256 required, the demo's lifetimes, RFC 9068 JWT access tokens (through its resourceIndicators
 * feature, the only way it issues JWT access tokens) except for demo-portal, whose access tokens are
 * opaque as the provider's are reference handles, refresh tokens rotated on every use, an SSO
 * session cookie, and no consent screen (the demo's clients are first-party: a grant is what they ask for).
 * The paths are the provider's, so the same load generators and flow code drive both.
 */

/** The resource indicator of the demo's API (config/scopes.yaml api_resources): its access tokens' audience. */
export const ACME_RESOURCE = "urn:portcullis-bench:acme-api";
/**
 * The resource indicator of a login's own access token: the provider's code-flow access token is an RFC
 * 9068 JWT whose audience is its userinfo endpoint; node-oidc-provider issues a JWT only for a resource.
 */
export const USERINFO_RESOURCE = `${DEMO_ISSUER}${USERINFO_PATH}`;
/**
 * node-oidc-provider's userinfo endpoint takes only its opaque, audience-less access tokens (it refuses a
 * JWT, and a token with an audience). The userinfo scenario is the one code flow that asks for `email`:
 * such a login gets the opaque token its userinfo accepts; every other login gets the JWT.
 */
const OPAQUE_FOR_USERINFO_SCOPE = "email";

const apiScopes = Object.keys(API_RESOURCE_OF_SCOPE);
const HOUR = 3600;

interface GrantLike {
  getOIDCScope(): string;
  getResourceScope(resource: string): string;
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}
/** The slice of node-oidc-provider's context the hooks below read (it ships no types). */
interface PeerContext {
  query: Record<string, string | undefined>;
  oidc: {
    params?: { scope?: string };
    client: { clientId: string; grantTypeAllowed(type: string): boolean };
    session: { accountId: string; grantIdFor(clientId: string): string | undefined };
    result?: { consent?: { grantId?: string } };
    resourceServers: Record<string, unknown>;
    entities: { Grant?: GrantLike };
    provider: {
      Grant: (new (init: { clientId: string; accountId: string }) => GrantLike) & { find(id: string): Promise<GrantLike | undefined> };
    };
  };
}

export function peerConfiguration(accounts: PeerAccounts): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "peer-signing-key", alg: "RS256", use: "sig" };
  return {
    clients: [
      {
        client_id: DEMO_WEB.clientId,
        client_secret: DEMO_WEB.clientSecret,
        grant_types: [...DEMO_WEB.grantTypes],
        response_types: ["code"],
        redirect_uris: [...DEMO_WEB.redirectUris],
        token_endpoint_auth_method: "client_secret_post",
        scope: DEMO_WEB.allowedScopes.join(" "),
      },
      {
        client_id: DEMO_PORTAL.clientId,
        client_secret: DEMO_PORTAL.clientSecret,
        grant_types: [...DEMO_PORTAL.grantTypes],
        response_types: ["code"],
        redirect_uris: [DEMO_PORTAL.redirectUri],
        token_endpoint_auth_method: "client_secret_post",
        scope: DEMO_PORTAL.allowedScopes.join(" "),
      },
      {
        client_id: DEMO_SERVICE.clientId,
        client_secret: DEMO_SERVICE.clientSecret,
        grant_types: [...DEMO_SERVICE.grantTypes],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_post",
        scope: DEMO_SERVICE.allowedScopes.join(" "),
      },
      // The DPoP and private_key_jwt scenarios' clients, as the provider has them (bench-clients.ts).
      ...peerClientEntries(),
    ],
    jwks: { keys: [jwk] },
    scopes: ["openid", "offline_access", ...Object.keys(accounts.scopeClaims).filter((s) => s !== "openid"), ...apiScopes],
    claims: accounts.scopeClaims,
    routes: { authorization: AUTHORIZE_PATH, token: TOKEN_PATH, userinfo: USERINFO_PATH, jwks: "/.well-known/openid-configuration/jwks" },
    // The bench's browser recognises an SSO session by the provider's cookie name.
    cookies: { keys: [randomBytes(32).toString("base64url")], names: { session: "portcullis_session" } },
    pkce: { required: () => true },
    ttl: {
      AccessToken: HOUR,
      ClientCredentials: HOUR,
      IdToken: HOUR,
      AuthorizationCode: 300,
      RefreshToken: 30 * 24 * HOUR,
      Session: 24 * HOUR,
      Grant: 24 * HOUR,
      Interaction: HOUR,
    },
    rotateRefreshToken: true,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      userinfo: { enabled: true },
      // DPoP without server nonces, as the provider's default (dpop.require_nonce: false).
      dPoP: { enabled: true },
      resourceIndicators: { enabled: true, defaultResource, useGrantedResource: () => true, getResourceServerInfo },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => {
      const user = accounts.bySub.get(sub);
      return user && { accountId: sub, claims: () => ({ sub, ...user.claims }) };
    },
    loadExistingGrant,
    // The demo client may hold refresh tokens (clients.yaml offline_access: true): a login that asked
    // for offline_access gets one. node-oidc-provider drops offline_access from an authorization request
    // without prompt=consent (OIDC Core §11), so the grant (below) is what remembers it was asked for.
    issueRefreshToken: (ctx: PeerContext, client: PeerContext["oidc"]["client"]) =>
      client.grantTypeAllowed("refresh_token") && (ctx.oidc.entities.Grant?.getOIDCScope().split(" ").includes("offline_access") ?? false),
  };
}

/**
 * The resource a token request is for when it names none: the API for demo-service (and the bench's
 * service clients), the userinfo
 * resource (a JWT) for a login; none, so an opaque access token, for demo-portal (the provider's
 * reference-token client) and for the userinfo scenario's login.
 */
function defaultResource(ctx: PeerContext, client: { clientId: string }, oneOf?: string | string[]): string | string[] | undefined {
  if (oneOf) return oneOf;
  if (isServiceClient(client.clientId)) return ACME_RESOURCE;
  if (client.clientId === DEMO_PORTAL.clientId) return undefined;
  const scope = ctx.oidc.params?.scope ?? "";
  return scope.split(" ").includes(OPAQUE_FOR_USERINFO_SCOPE) ? undefined : USERINFO_RESOURCE;
}

function getResourceServerInfo(_ctx: unknown, resource: string): Record<string, unknown> {
  const jwt = { accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } }, accessTokenTTL: HOUR };
  if (resource === ACME_RESOURCE) return { ...jwt, scope: apiScopes.join(" "), audience: API_RESOURCE_OF_SCOPE.acme };
  if (resource === USERINFO_RESOURCE)
    return { ...jwt, scope: DEMO_WEB.allowedScopes.filter((s) => !apiScopes.includes(s)).join(" "), audience: USERINFO_RESOURCE };
  throw new Error(`unknown resource ${resource}`);
}

/**
 * No consent screen: the grant holds whatever the first-party client asks for (the scope as requested,
 * offline_access included, and the resource's scopes), created or widened when it asks for more.
 */
async function loadExistingGrant(ctx: PeerContext): Promise<GrantLike> {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
  const grant =
    (grantId ? await oidc.provider.Grant.find(grantId) : undefined) ??
    new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
  // The scope as the client asked for it (node-oidc-provider has dropped offline_access from its params by
  // now), or, when the authorization resumes after the login page, as the interaction recorded it.
  const requested = [...new Set(`${ctx.query.scope ?? ""} ${oidc.params?.scope ?? ""}`.split(" ").filter((s) => s !== ""))];
  let changed = grantId === undefined;
  const granted = new Set(grant.getOIDCScope().split(" "));
  if (requested.some((s) => !granted.has(s))) {
    grant.addOIDCScope(requested.join(" "));
    changed = true;
  }
  for (const resource of Object.keys(oidc.resourceServers)) {
    const has = new Set(grant.getResourceScope(resource).split(" "));
    if (requested.some((s) => !has.has(s))) {
      grant.addResourceScope(resource, requested.join(" "));
      changed = true;
    }
  }
  if (changed) await grant.save();
  return grant;
}
