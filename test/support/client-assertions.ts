import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";

/**
 * The client's side of private_key_jwt for tests that attack the provider: key pairs with their public
 * JWK, clients.yaml entries that use them, and assertions built claim by claim (openid-client builds
 * only correct ones).
 */

export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

export interface ClientKeyPair {
  alg: "RS256" | "PS256" | "ES256";
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function clientKeyPair(alg: ClientKeyPair["alg"], kid: string): Promise<ClientKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, use: "sig" } };
}

/** A clients.yaml entry of a confidential private_key_jwt client with the client_credentials grant. */
export function keyClient(clientId: string, keys: { jwks: JWK[] } | { jwks_uri: string }): Record<string, unknown> {
  return {
    client_id: clientId,
    type: "confidential",
    token_endpoint_auth_method: "private_key_jwt",
    ...("jwks" in keys ? { jwks: { keys: keys.jwks } } : { jwks_uri: keys.jwks_uri }),
    grant_types: ["client_credentials"],
    allowed_scopes: ["acme"],
  };
}

export interface AssertionOptions {
  /** Claims over (or, as undefined, removing) the correct ones. */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Epoch seconds the assertion is made at; default now. */
  now?: number;
}

/** A correct assertion of `clientId` for `issuer` (iss = sub = client, aud = issuer, 60 s, fresh jti), then the options' changes. */
export async function signAssertion(key: ClientKeyPair, clientId: string, issuer: string, options: AssertionOptions = {}): Promise<string> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: clientId,
    sub: clientId,
    aud: issuer,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, ...options.header }).sign(key.privateKey);
}

/** An unsigned JWT (alg none): what an attacker without any key would send. */
export function unsignedAssertion(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part(claims)}.`;
}

/** The token request form of a client_credentials grant authenticated by `assertion`. */
export const assertionForm = (assertion: string, extra: Record<string, string> = {}) => ({
  grant_type: "client_credentials",
  client_assertion_type: JWT_BEARER,
  client_assertion: assertion,
  ...extra,
});
