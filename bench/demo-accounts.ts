/**
 * The parts of the demo config (config/) the bench sends or checks: what the load generators present as a
 * client and a user, and what the ceiling servers (workers/ceiling-*.ts) hold instead of config files, so
 * that their tokens are the provider's in size and content.
 */

/** config/provider.yaml's issuer (the provider puts it in every token; the bench serves it on another port). */
export const DEMO_ISSUER = "http://localhost:3000";

/** The confidential web client (config/clients.yaml). */
export const DEMO_WEB = {
  clientId: "demo-web",
  clientSecret: "demo-web-secret",
  redirectUri: "http://localhost:3001/callback",
  /** What the demo web app asks for at /connect/authorize. */
  scope: "openid profile",
  redirectUris: ["http://localhost:3001/callback", "http://127.0.0.1:3001/callback"],
  grantTypes: ["authorization_code", "refresh_token"],
  allowedScopes: ["openid", "profile", "email", "offline_access", "acme", "acme.api.msg"],
} as const;

/**
 * The confidential client of config/clients.yaml whose access tokens are reference handles
 * (`access_token_format: reference`): the refresh_reference scenario refreshes as this client.
 */
export const DEMO_PORTAL = {
  clientId: "demo-portal",
  clientSecret: "demo-portal-secret",
  redirectUri: "http://localhost:3003/callback",
  grantTypes: ["authorization_code", "refresh_token", "client_credentials"],
  allowedScopes: ["openid", "profile", "email", "offline_access", "acme"],
} as const;

/**
 * A confidential client as the code flow and the refresh grant present it: its secret (client_secret_post)
 * and, for the DPoP and private_key_jwt scenarios (bench-clients.ts), what each token request adds, made
 * fresh per request (a DPoP proof header, a client assertion in place of the secret).
 */
export interface CodeFlowClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  credentials?: () => { headers: Record<string, string>; form: Record<string, string> };
}

/** The back-end service client that uses client_credentials (config/clients.yaml). */
export const DEMO_SERVICE = {
  clientId: "demo-service",
  clientSecret: "demo-service-secret",
  grantTypes: ["client_credentials"],
  allowedScopes: ["acme", "acme.api.msg"],
} as const;

/** config/scopes.yaml: the API resource each API scope belongs to (an access token's audience). */
export const API_RESOURCE_OF_SCOPE: Readonly<Record<string, string>> = { acme: "acme-api", "acme.api.msg": "acme-api" };

/**
 * The demo users (config/users.yaml). Virtual users alternate between them: the password attempt limit
 * (security.password_attempts.max_failures, 5 in the demo config) counts every attempt until it
 * succeeds, so more than 5 logins in flight for one account would be refused.
 */
export const DEMO_USERS = [
  { username: "alice", password: "alice-password", sub: "E10001" },
  { username: "bob", password: "bob-password", sub: "E10002" },
] as const;
export type DemoUser = (typeof DEMO_USERS)[number];
